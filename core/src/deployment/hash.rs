//! PLACEHOLDER for the pod-template-hash (D-27), being written on branch `dep-hash`.
//! Deterministic, not upstream's: RS names created with it will not match upstream.

/// The `pod-template-hash` of a pod template and collision count.
pub fn pod_template_hash(
    template: &serde_json::Value,
    collision_count: Option<i32>,
) -> Result<String, crate::Error> {
    let text = template.to_string();
    let mut h: u32 = 0x811c_9dc5;
    for b in text.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    if let Some(c) = collision_count {
        for b in (c as u32).to_le_bytes().into_iter().chain([0u8; 4]) {
            h ^= u32::from(b);
            h = h.wrapping_mul(0x0100_0193);
        }
    }
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    Ok(h.to_string()
        .bytes()
        .map(|c| {
            ALPHABET
                .get(usize::from(c) % 27)
                .map_or('x', |&b| char::from(b))
        })
        .collect())
}
