//! What a sync would do now for each ReplicaSet of a `kubectl get rs,pods -o json`
//! snapshot, and which pods a scale-down would delete, with the deciding rule.
//! (Being written.)
