//! D-110..D-115 (to come).
