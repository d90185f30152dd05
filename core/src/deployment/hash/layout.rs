//! The Go type layout of `k8s.io/api/core/v1.PodTemplateSpec` in Kubernetes v1.36.2, as
//! data: every struct type reachable from it (in `core/v1` and `meta/v1`, plus the
//! internals of `resource.Quantity`, `intstr.IntOrString` and `metav1.Time` that go-spew
//! prints), each with its fields in declaration order, and every named non-struct type
//! with its underlying type. [`super`] walks a template's JSON along this table to
//! write what `dump.ForHash` writes for the decoded Go value (D-hash; DEPLOYMENT.md, kind
//! `deployment-hash`).
//!
//! Types are spelled as Go's `reflect.Type.String()` spells them, because that is what
//! go-spew prints: `v1.Container` (core and meta types both print as `v1.`),
//! `*v1.Probe`, `[]v1.EnvVar`, `map[string]string`, `v1.ResourceList`. A field's JSON
//! name is its `json` tag; [`Json::Inline`] marks an embedded struct whose fields
//! encoding/json promotes into the outer object; [`Json::Skip`] a field it never sets.
//!
//! Facts transcribed from upstream `staging/src/k8s.io/api/core/v1/types.go`,
//! `apimachinery/pkg/apis/meta/v1/{types,time,fieldsv1_byte}.go`,
//! `apimachinery/pkg/api/resource/{quantity,amount}.go` and
//! `apimachinery/pkg/util/intstr/intstr.go`. A field added upstream changes every hash:
//! update this table (and only this table) when moving to another Kubernetes version.

/// How encoding/json fills a struct type from JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decode {
    /// Member by member through the fields' JSON names (the ordinary case).
    Object,
    /// `resource.Quantity.UnmarshalJSON`: a string (or number) parsed by `ParseQuantity`.
    Quantity,
    /// `intstr.IntOrString.UnmarshalJSON`: a JSON string or a JSON integer.
    IntOrString,
    /// `metav1.Time.UnmarshalJSON`: null, or an RFC 3339 string converted to local time.
    Time,
    /// `metav1.FieldsV1.UnmarshalJSON`: the raw bytes of any JSON value.
    FieldsV1,
}

/// Where a field's value comes from in the JSON object of its struct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Json {
    /// The member of this name (encoding/json also accepts a case-insensitive match).
    Key(&'static str),
    /// An embedded struct: its fields are read from the same object.
    Inline,
    /// Never set from JSON (`json:"-"`).
    Skip,
}

/// One field of a Go struct, in declaration order.
#[derive(Debug)]
pub(crate) struct GoField {
    /// The Go field name, as go-spew prints it (`TerminationGracePeriodSeconds`).
    pub go: &'static str,
    /// Where encoding/json reads it from.
    pub json: Json,
    /// The Go type as `reflect` spells it (`*int64`, `[]v1.Container`).
    pub ty: &'static str,
}

/// One Go struct type.
#[derive(Debug)]
pub(crate) struct GoStruct {
    /// The type as `reflect` spells it (`v1.PodSpec`).
    pub name: &'static str,
    /// How a JSON value becomes this struct.
    pub decode: Decode,
    /// The fields in declaration order.
    pub fields: &'static [GoField],
}

const fn f(go: &'static str, json: &'static str, ty: &'static str) -> GoField {
    GoField {
        go,
        json: Json::Key(json),
        ty,
    }
}

const fn inline(go: &'static str, ty: &'static str) -> GoField {
    GoField {
        go,
        json: Json::Inline,
        ty,
    }
}

const fn skip(go: &'static str, ty: &'static str) -> GoField {
    GoField {
        go,
        json: Json::Skip,
        ty,
    }
}

/// Every struct type reachable from `v1.PodTemplateSpec`, sorted by name.
pub(crate) static STRUCTS: &[GoStruct] = &[
    GoStruct {
        name: "intstr.IntOrString",
        decode: Decode::IntOrString,
        fields: &[
            f("Type", "Type", "intstr.Type"),
            f("IntVal", "IntVal", "int32"),
            f("StrVal", "StrVal", "string"),
        ],
    },
    GoStruct {
        name: "resource.Quantity",
        decode: Decode::Quantity,
        fields: &[
            f("i", "i", "resource.int64Amount"),
            f("d", "d", "resource.infDecAmount"),
            f("s", "s", "string"),
            f("Format", "Format", "resource.Format"),
        ],
    },
    GoStruct {
        name: "resource.infDecAmount",
        decode: Decode::Object,
        fields: &[f("Dec", "Dec", "*inf.Dec")],
    },
    GoStruct {
        name: "resource.int64Amount",
        decode: Decode::Object,
        fields: &[
            f("value", "value", "int64"),
            f("scale", "scale", "resource.Scale"),
        ],
    },
    GoStruct {
        name: "time.Time",
        decode: Decode::Object,
        fields: &[
            f("wall", "wall", "uint64"),
            f("ext", "ext", "int64"),
            f("loc", "loc", "*time.Location"),
        ],
    },
    GoStruct {
        name: "v1.AWSElasticBlockStoreVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("VolumeID", "volumeID", "string"),
            f("FSType", "fsType", "string"),
            f("Partition", "partition", "int32"),
            f("ReadOnly", "readOnly", "bool"),
        ],
    },
    GoStruct {
        name: "v1.Affinity",
        decode: Decode::Object,
        fields: &[
            f("NodeAffinity", "nodeAffinity", "*v1.NodeAffinity"),
            f("PodAffinity", "podAffinity", "*v1.PodAffinity"),
            f("PodAntiAffinity", "podAntiAffinity", "*v1.PodAntiAffinity"),
        ],
    },
    GoStruct {
        name: "v1.AppArmorProfile",
        decode: Decode::Object,
        fields: &[
            f("Type", "type", "v1.AppArmorProfileType"),
            f("LocalhostProfile", "localhostProfile", "*string"),
        ],
    },
    GoStruct {
        name: "v1.AzureDiskVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("DiskName", "diskName", "string"),
            f("DataDiskURI", "diskURI", "string"),
            f("CachingMode", "cachingMode", "*v1.AzureDataDiskCachingMode"),
            f("FSType", "fsType", "*string"),
            f("ReadOnly", "readOnly", "*bool"),
            f("Kind", "kind", "*v1.AzureDataDiskKind"),
        ],
    },
    GoStruct {
        name: "v1.AzureFileVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("SecretName", "secretName", "string"),
            f("ShareName", "shareName", "string"),
            f("ReadOnly", "readOnly", "bool"),
        ],
    },
    GoStruct {
        name: "v1.CSIVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("Driver", "driver", "string"),
            f("ReadOnly", "readOnly", "*bool"),
            f("FSType", "fsType", "*string"),
            f("VolumeAttributes", "volumeAttributes", "map[string]string"),
            f(
                "NodePublishSecretRef",
                "nodePublishSecretRef",
                "*v1.LocalObjectReference",
            ),
        ],
    },
    GoStruct {
        name: "v1.Capabilities",
        decode: Decode::Object,
        fields: &[
            f("Add", "add", "[]v1.Capability"),
            f("Drop", "drop", "[]v1.Capability"),
        ],
    },
    GoStruct {
        name: "v1.CephFSVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("Monitors", "monitors", "[]string"),
            f("Path", "path", "string"),
            f("User", "user", "string"),
            f("SecretFile", "secretFile", "string"),
            f("SecretRef", "secretRef", "*v1.LocalObjectReference"),
            f("ReadOnly", "readOnly", "bool"),
        ],
    },
    GoStruct {
        name: "v1.CinderVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("VolumeID", "volumeID", "string"),
            f("FSType", "fsType", "string"),
            f("ReadOnly", "readOnly", "bool"),
            f("SecretRef", "secretRef", "*v1.LocalObjectReference"),
        ],
    },
    GoStruct {
        name: "v1.ClusterTrustBundleProjection",
        decode: Decode::Object,
        fields: &[
            f("Name", "name", "*string"),
            f("SignerName", "signerName", "*string"),
            f("LabelSelector", "labelSelector", "*v1.LabelSelector"),
            f("Optional", "optional", "*bool"),
            f("Path", "path", "string"),
        ],
    },
    GoStruct {
        name: "v1.ConfigMapEnvSource",
        decode: Decode::Object,
        fields: &[
            inline("LocalObjectReference", "v1.LocalObjectReference"),
            f("Optional", "optional", "*bool"),
        ],
    },
    GoStruct {
        name: "v1.ConfigMapKeySelector",
        decode: Decode::Object,
        fields: &[
            inline("LocalObjectReference", "v1.LocalObjectReference"),
            f("Key", "key", "string"),
            f("Optional", "optional", "*bool"),
        ],
    },
    GoStruct {
        name: "v1.ConfigMapProjection",
        decode: Decode::Object,
        fields: &[
            inline("LocalObjectReference", "v1.LocalObjectReference"),
            f("Items", "items", "[]v1.KeyToPath"),
            f("Optional", "optional", "*bool"),
        ],
    },
    GoStruct {
        name: "v1.ConfigMapVolumeSource",
        decode: Decode::Object,
        fields: &[
            inline("LocalObjectReference", "v1.LocalObjectReference"),
            f("Items", "items", "[]v1.KeyToPath"),
            f("DefaultMode", "defaultMode", "*int32"),
            f("Optional", "optional", "*bool"),
        ],
    },
    GoStruct {
        name: "v1.Container",
        decode: Decode::Object,
        fields: &[
            f("Name", "name", "string"),
            f("Image", "image", "string"),
            f("Command", "command", "[]string"),
            f("Args", "args", "[]string"),
            f("WorkingDir", "workingDir", "string"),
            f("Ports", "ports", "[]v1.ContainerPort"),
            f("EnvFrom", "envFrom", "[]v1.EnvFromSource"),
            f("Env", "env", "[]v1.EnvVar"),
            f("Resources", "resources", "v1.ResourceRequirements"),
            f("ResizePolicy", "resizePolicy", "[]v1.ContainerResizePolicy"),
            f(
                "RestartPolicy",
                "restartPolicy",
                "*v1.ContainerRestartPolicy",
            ),
            f(
                "RestartPolicyRules",
                "restartPolicyRules",
                "[]v1.ContainerRestartRule",
            ),
            f("VolumeMounts", "volumeMounts", "[]v1.VolumeMount"),
            f("VolumeDevices", "volumeDevices", "[]v1.VolumeDevice"),
            f("LivenessProbe", "livenessProbe", "*v1.Probe"),
            f("ReadinessProbe", "readinessProbe", "*v1.Probe"),
            f("StartupProbe", "startupProbe", "*v1.Probe"),
            f("Lifecycle", "lifecycle", "*v1.Lifecycle"),
            f("TerminationMessagePath", "terminationMessagePath", "string"),
            f(
                "TerminationMessagePolicy",
                "terminationMessagePolicy",
                "v1.TerminationMessagePolicy",
            ),
            f("ImagePullPolicy", "imagePullPolicy", "v1.PullPolicy"),
            f("SecurityContext", "securityContext", "*v1.SecurityContext"),
            f("Stdin", "stdin", "bool"),
            f("StdinOnce", "stdinOnce", "bool"),
            f("TTY", "tty", "bool"),
        ],
    },
    GoStruct {
        name: "v1.ContainerPort",
        decode: Decode::Object,
        fields: &[
            f("Name", "name", "string"),
            f("HostPort", "hostPort", "int32"),
            f("ContainerPort", "containerPort", "int32"),
            f("Protocol", "protocol", "v1.Protocol"),
            f("HostIP", "hostIP", "string"),
        ],
    },
    GoStruct {
        name: "v1.ContainerResizePolicy",
        decode: Decode::Object,
        fields: &[
            f("ResourceName", "resourceName", "v1.ResourceName"),
            f(
                "RestartPolicy",
                "restartPolicy",
                "v1.ResourceResizeRestartPolicy",
            ),
        ],
    },
    GoStruct {
        name: "v1.ContainerRestartRule",
        decode: Decode::Object,
        fields: &[
            f("Action", "action", "v1.ContainerRestartRuleAction"),
            f(
                "ExitCodes",
                "exitCodes",
                "*v1.ContainerRestartRuleOnExitCodes",
            ),
        ],
    },
    GoStruct {
        name: "v1.ContainerRestartRuleOnExitCodes",
        decode: Decode::Object,
        fields: &[
            f(
                "Operator",
                "operator",
                "v1.ContainerRestartRuleOnExitCodesOperator",
            ),
            f("Values", "values", "[]int32"),
        ],
    },
    GoStruct {
        name: "v1.DownwardAPIProjection",
        decode: Decode::Object,
        fields: &[f("Items", "items", "[]v1.DownwardAPIVolumeFile")],
    },
    GoStruct {
        name: "v1.DownwardAPIVolumeFile",
        decode: Decode::Object,
        fields: &[
            f("Path", "path", "string"),
            f("FieldRef", "fieldRef", "*v1.ObjectFieldSelector"),
            f(
                "ResourceFieldRef",
                "resourceFieldRef",
                "*v1.ResourceFieldSelector",
            ),
            f("Mode", "mode", "*int32"),
        ],
    },
    GoStruct {
        name: "v1.DownwardAPIVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("Items", "items", "[]v1.DownwardAPIVolumeFile"),
            f("DefaultMode", "defaultMode", "*int32"),
        ],
    },
    GoStruct {
        name: "v1.EmptyDirVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("Medium", "medium", "v1.StorageMedium"),
            f("SizeLimit", "sizeLimit", "*resource.Quantity"),
        ],
    },
    GoStruct {
        name: "v1.EnvFromSource",
        decode: Decode::Object,
        fields: &[
            f("Prefix", "prefix", "string"),
            f("ConfigMapRef", "configMapRef", "*v1.ConfigMapEnvSource"),
            f("SecretRef", "secretRef", "*v1.SecretEnvSource"),
        ],
    },
    GoStruct {
        name: "v1.EnvVar",
        decode: Decode::Object,
        fields: &[
            f("Name", "name", "string"),
            f("Value", "value", "string"),
            f("ValueFrom", "valueFrom", "*v1.EnvVarSource"),
        ],
    },
    GoStruct {
        name: "v1.EnvVarSource",
        decode: Decode::Object,
        fields: &[
            f("FieldRef", "fieldRef", "*v1.ObjectFieldSelector"),
            f(
                "ResourceFieldRef",
                "resourceFieldRef",
                "*v1.ResourceFieldSelector",
            ),
            f(
                "ConfigMapKeyRef",
                "configMapKeyRef",
                "*v1.ConfigMapKeySelector",
            ),
            f("SecretKeyRef", "secretKeyRef", "*v1.SecretKeySelector"),
            f("FileKeyRef", "fileKeyRef", "*v1.FileKeySelector"),
        ],
    },
    GoStruct {
        name: "v1.EphemeralContainer",
        decode: Decode::Object,
        fields: &[
            inline("EphemeralContainerCommon", "v1.EphemeralContainerCommon"),
            f("TargetContainerName", "targetContainerName", "string"),
        ],
    },
    GoStruct {
        name: "v1.EphemeralContainerCommon",
        decode: Decode::Object,
        fields: &[
            f("Name", "name", "string"),
            f("Image", "image", "string"),
            f("Command", "command", "[]string"),
            f("Args", "args", "[]string"),
            f("WorkingDir", "workingDir", "string"),
            f("Ports", "ports", "[]v1.ContainerPort"),
            f("EnvFrom", "envFrom", "[]v1.EnvFromSource"),
            f("Env", "env", "[]v1.EnvVar"),
            f("Resources", "resources", "v1.ResourceRequirements"),
            f("ResizePolicy", "resizePolicy", "[]v1.ContainerResizePolicy"),
            f(
                "RestartPolicy",
                "restartPolicy",
                "*v1.ContainerRestartPolicy",
            ),
            f(
                "RestartPolicyRules",
                "restartPolicyRules",
                "[]v1.ContainerRestartRule",
            ),
            f("VolumeMounts", "volumeMounts", "[]v1.VolumeMount"),
            f("VolumeDevices", "volumeDevices", "[]v1.VolumeDevice"),
            f("LivenessProbe", "livenessProbe", "*v1.Probe"),
            f("ReadinessProbe", "readinessProbe", "*v1.Probe"),
            f("StartupProbe", "startupProbe", "*v1.Probe"),
            f("Lifecycle", "lifecycle", "*v1.Lifecycle"),
            f("TerminationMessagePath", "terminationMessagePath", "string"),
            f(
                "TerminationMessagePolicy",
                "terminationMessagePolicy",
                "v1.TerminationMessagePolicy",
            ),
            f("ImagePullPolicy", "imagePullPolicy", "v1.PullPolicy"),
            f("SecurityContext", "securityContext", "*v1.SecurityContext"),
            f("Stdin", "stdin", "bool"),
            f("StdinOnce", "stdinOnce", "bool"),
            f("TTY", "tty", "bool"),
        ],
    },
    GoStruct {
        name: "v1.EphemeralVolumeSource",
        decode: Decode::Object,
        fields: &[f(
            "VolumeClaimTemplate",
            "volumeClaimTemplate",
            "*v1.PersistentVolumeClaimTemplate",
        )],
    },
    GoStruct {
        name: "v1.ExecAction",
        decode: Decode::Object,
        fields: &[f("Command", "command", "[]string")],
    },
    GoStruct {
        name: "v1.FCVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("TargetWWNs", "targetWWNs", "[]string"),
            f("Lun", "lun", "*int32"),
            f("FSType", "fsType", "string"),
            f("ReadOnly", "readOnly", "bool"),
            f("WWIDs", "wwids", "[]string"),
        ],
    },
    GoStruct {
        name: "v1.FieldsV1",
        decode: Decode::FieldsV1,
        fields: &[skip("Raw", "[]uint8")],
    },
    GoStruct {
        name: "v1.FileKeySelector",
        decode: Decode::Object,
        fields: &[
            f("VolumeName", "volumeName", "string"),
            f("Path", "path", "string"),
            f("Key", "key", "string"),
            f("Optional", "optional", "*bool"),
        ],
    },
    GoStruct {
        name: "v1.FlexVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("Driver", "driver", "string"),
            f("FSType", "fsType", "string"),
            f("SecretRef", "secretRef", "*v1.LocalObjectReference"),
            f("ReadOnly", "readOnly", "bool"),
            f("Options", "options", "map[string]string"),
        ],
    },
    GoStruct {
        name: "v1.FlockerVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("DatasetName", "datasetName", "string"),
            f("DatasetUUID", "datasetUUID", "string"),
        ],
    },
    GoStruct {
        name: "v1.GCEPersistentDiskVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("PDName", "pdName", "string"),
            f("FSType", "fsType", "string"),
            f("Partition", "partition", "int32"),
            f("ReadOnly", "readOnly", "bool"),
        ],
    },
    GoStruct {
        name: "v1.GRPCAction",
        decode: Decode::Object,
        fields: &[
            f("Port", "port", "int32"),
            f("Service", "service", "*string"),
        ],
    },
    GoStruct {
        name: "v1.GitRepoVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("Repository", "repository", "string"),
            f("Revision", "revision", "string"),
            f("Directory", "directory", "string"),
        ],
    },
    GoStruct {
        name: "v1.GlusterfsVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("EndpointsName", "endpoints", "string"),
            f("Path", "path", "string"),
            f("ReadOnly", "readOnly", "bool"),
        ],
    },
    GoStruct {
        name: "v1.HTTPGetAction",
        decode: Decode::Object,
        fields: &[
            f("Path", "path", "string"),
            f("Port", "port", "intstr.IntOrString"),
            f("Host", "host", "string"),
            f("Scheme", "scheme", "v1.URIScheme"),
            f("HTTPHeaders", "httpHeaders", "[]v1.HTTPHeader"),
        ],
    },
    GoStruct {
        name: "v1.HTTPHeader",
        decode: Decode::Object,
        fields: &[f("Name", "name", "string"), f("Value", "value", "string")],
    },
    GoStruct {
        name: "v1.HostAlias",
        decode: Decode::Object,
        fields: &[
            f("IP", "ip", "string"),
            f("Hostnames", "hostnames", "[]string"),
        ],
    },
    GoStruct {
        name: "v1.HostPathVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("Path", "path", "string"),
            f("Type", "type", "*v1.HostPathType"),
        ],
    },
    GoStruct {
        name: "v1.ISCSIVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("TargetPortal", "targetPortal", "string"),
            f("IQN", "iqn", "string"),
            f("Lun", "lun", "int32"),
            f("ISCSIInterface", "iscsiInterface", "string"),
            f("FSType", "fsType", "string"),
            f("ReadOnly", "readOnly", "bool"),
            f("Portals", "portals", "[]string"),
            f("DiscoveryCHAPAuth", "chapAuthDiscovery", "bool"),
            f("SessionCHAPAuth", "chapAuthSession", "bool"),
            f("SecretRef", "secretRef", "*v1.LocalObjectReference"),
            f("InitiatorName", "initiatorName", "*string"),
        ],
    },
    GoStruct {
        name: "v1.ImageVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("Reference", "reference", "string"),
            f("PullPolicy", "pullPolicy", "v1.PullPolicy"),
        ],
    },
    GoStruct {
        name: "v1.KeyToPath",
        decode: Decode::Object,
        fields: &[
            f("Key", "key", "string"),
            f("Path", "path", "string"),
            f("Mode", "mode", "*int32"),
        ],
    },
    GoStruct {
        name: "v1.LabelSelector",
        decode: Decode::Object,
        fields: &[
            f("MatchLabels", "matchLabels", "map[string]string"),
            f(
                "MatchExpressions",
                "matchExpressions",
                "[]v1.LabelSelectorRequirement",
            ),
        ],
    },
    GoStruct {
        name: "v1.LabelSelectorRequirement",
        decode: Decode::Object,
        fields: &[
            f("Key", "key", "string"),
            f("Operator", "operator", "v1.LabelSelectorOperator"),
            f("Values", "values", "[]string"),
        ],
    },
    GoStruct {
        name: "v1.Lifecycle",
        decode: Decode::Object,
        fields: &[
            f("PostStart", "postStart", "*v1.LifecycleHandler"),
            f("PreStop", "preStop", "*v1.LifecycleHandler"),
            f("StopSignal", "stopSignal", "*v1.Signal"),
        ],
    },
    GoStruct {
        name: "v1.LifecycleHandler",
        decode: Decode::Object,
        fields: &[
            f("Exec", "exec", "*v1.ExecAction"),
            f("HTTPGet", "httpGet", "*v1.HTTPGetAction"),
            f("TCPSocket", "tcpSocket", "*v1.TCPSocketAction"),
            f("Sleep", "sleep", "*v1.SleepAction"),
        ],
    },
    GoStruct {
        name: "v1.LocalObjectReference",
        decode: Decode::Object,
        fields: &[f("Name", "name", "string")],
    },
    GoStruct {
        name: "v1.ManagedFieldsEntry",
        decode: Decode::Object,
        fields: &[
            f("Manager", "manager", "string"),
            f("Operation", "operation", "v1.ManagedFieldsOperationType"),
            f("APIVersion", "apiVersion", "string"),
            f("Time", "time", "*v1.Time"),
            f("FieldsType", "fieldsType", "string"),
            f("FieldsV1", "fieldsV1", "*v1.FieldsV1"),
            f("Subresource", "subresource", "string"),
        ],
    },
    GoStruct {
        name: "v1.NFSVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("Server", "server", "string"),
            f("Path", "path", "string"),
            f("ReadOnly", "readOnly", "bool"),
        ],
    },
    GoStruct {
        name: "v1.NodeAffinity",
        decode: Decode::Object,
        fields: &[
            f(
                "RequiredDuringSchedulingIgnoredDuringExecution",
                "requiredDuringSchedulingIgnoredDuringExecution",
                "*v1.NodeSelector",
            ),
            f(
                "PreferredDuringSchedulingIgnoredDuringExecution",
                "preferredDuringSchedulingIgnoredDuringExecution",
                "[]v1.PreferredSchedulingTerm",
            ),
        ],
    },
    GoStruct {
        name: "v1.NodeSelector",
        decode: Decode::Object,
        fields: &[f(
            "NodeSelectorTerms",
            "nodeSelectorTerms",
            "[]v1.NodeSelectorTerm",
        )],
    },
    GoStruct {
        name: "v1.NodeSelectorRequirement",
        decode: Decode::Object,
        fields: &[
            f("Key", "key", "string"),
            f("Operator", "operator", "v1.NodeSelectorOperator"),
            f("Values", "values", "[]string"),
        ],
    },
    GoStruct {
        name: "v1.NodeSelectorTerm",
        decode: Decode::Object,
        fields: &[
            f(
                "MatchExpressions",
                "matchExpressions",
                "[]v1.NodeSelectorRequirement",
            ),
            f("MatchFields", "matchFields", "[]v1.NodeSelectorRequirement"),
        ],
    },
    GoStruct {
        name: "v1.ObjectFieldSelector",
        decode: Decode::Object,
        fields: &[
            f("APIVersion", "apiVersion", "string"),
            f("FieldPath", "fieldPath", "string"),
        ],
    },
    GoStruct {
        name: "v1.ObjectMeta",
        decode: Decode::Object,
        fields: &[
            f("Name", "name", "string"),
            f("GenerateName", "generateName", "string"),
            f("Namespace", "namespace", "string"),
            f("SelfLink", "selfLink", "string"),
            f("UID", "uid", "types.UID"),
            f("ResourceVersion", "resourceVersion", "string"),
            f("Generation", "generation", "int64"),
            f("CreationTimestamp", "creationTimestamp", "v1.Time"),
            f("DeletionTimestamp", "deletionTimestamp", "*v1.Time"),
            f(
                "DeletionGracePeriodSeconds",
                "deletionGracePeriodSeconds",
                "*int64",
            ),
            f("Labels", "labels", "map[string]string"),
            f("Annotations", "annotations", "map[string]string"),
            f("OwnerReferences", "ownerReferences", "[]v1.OwnerReference"),
            f("Finalizers", "finalizers", "[]string"),
            f("ManagedFields", "managedFields", "[]v1.ManagedFieldsEntry"),
        ],
    },
    GoStruct {
        name: "v1.OwnerReference",
        decode: Decode::Object,
        fields: &[
            f("APIVersion", "apiVersion", "string"),
            f("Kind", "kind", "string"),
            f("Name", "name", "string"),
            f("UID", "uid", "types.UID"),
            f("Controller", "controller", "*bool"),
            f("BlockOwnerDeletion", "blockOwnerDeletion", "*bool"),
        ],
    },
    GoStruct {
        name: "v1.PersistentVolumeClaimSpec",
        decode: Decode::Object,
        fields: &[
            f(
                "AccessModes",
                "accessModes",
                "[]v1.PersistentVolumeAccessMode",
            ),
            f("Selector", "selector", "*v1.LabelSelector"),
            f("Resources", "resources", "v1.VolumeResourceRequirements"),
            f("VolumeName", "volumeName", "string"),
            f("StorageClassName", "storageClassName", "*string"),
            f("VolumeMode", "volumeMode", "*v1.PersistentVolumeMode"),
            f("DataSource", "dataSource", "*v1.TypedLocalObjectReference"),
            f("DataSourceRef", "dataSourceRef", "*v1.TypedObjectReference"),
            f(
                "VolumeAttributesClassName",
                "volumeAttributesClassName",
                "*string",
            ),
        ],
    },
    GoStruct {
        name: "v1.PersistentVolumeClaimTemplate",
        decode: Decode::Object,
        fields: &[
            f("ObjectMeta", "metadata", "v1.ObjectMeta"),
            f("Spec", "spec", "v1.PersistentVolumeClaimSpec"),
        ],
    },
    GoStruct {
        name: "v1.PersistentVolumeClaimVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("ClaimName", "claimName", "string"),
            f("ReadOnly", "readOnly", "bool"),
        ],
    },
    GoStruct {
        name: "v1.PhotonPersistentDiskVolumeSource",
        decode: Decode::Object,
        fields: &[f("PdID", "pdID", "string"), f("FSType", "fsType", "string")],
    },
    GoStruct {
        name: "v1.PodAffinity",
        decode: Decode::Object,
        fields: &[
            f(
                "RequiredDuringSchedulingIgnoredDuringExecution",
                "requiredDuringSchedulingIgnoredDuringExecution",
                "[]v1.PodAffinityTerm",
            ),
            f(
                "PreferredDuringSchedulingIgnoredDuringExecution",
                "preferredDuringSchedulingIgnoredDuringExecution",
                "[]v1.WeightedPodAffinityTerm",
            ),
        ],
    },
    GoStruct {
        name: "v1.PodAffinityTerm",
        decode: Decode::Object,
        fields: &[
            f("LabelSelector", "labelSelector", "*v1.LabelSelector"),
            f("Namespaces", "namespaces", "[]string"),
            f("TopologyKey", "topologyKey", "string"),
            f(
                "NamespaceSelector",
                "namespaceSelector",
                "*v1.LabelSelector",
            ),
            f("MatchLabelKeys", "matchLabelKeys", "[]string"),
            f("MismatchLabelKeys", "mismatchLabelKeys", "[]string"),
        ],
    },
    GoStruct {
        name: "v1.PodAntiAffinity",
        decode: Decode::Object,
        fields: &[
            f(
                "RequiredDuringSchedulingIgnoredDuringExecution",
                "requiredDuringSchedulingIgnoredDuringExecution",
                "[]v1.PodAffinityTerm",
            ),
            f(
                "PreferredDuringSchedulingIgnoredDuringExecution",
                "preferredDuringSchedulingIgnoredDuringExecution",
                "[]v1.WeightedPodAffinityTerm",
            ),
        ],
    },
    GoStruct {
        name: "v1.PodCertificateProjection",
        decode: Decode::Object,
        fields: &[
            f("SignerName", "signerName", "string"),
            f("KeyType", "keyType", "string"),
            f("MaxExpirationSeconds", "maxExpirationSeconds", "*int32"),
            f("CredentialBundlePath", "credentialBundlePath", "string"),
            f("KeyPath", "keyPath", "string"),
            f("CertificateChainPath", "certificateChainPath", "string"),
            f("UserAnnotations", "userAnnotations", "map[string]string"),
        ],
    },
    GoStruct {
        name: "v1.PodDNSConfig",
        decode: Decode::Object,
        fields: &[
            f("Nameservers", "nameservers", "[]string"),
            f("Searches", "searches", "[]string"),
            f("Options", "options", "[]v1.PodDNSConfigOption"),
        ],
    },
    GoStruct {
        name: "v1.PodDNSConfigOption",
        decode: Decode::Object,
        fields: &[f("Name", "name", "string"), f("Value", "value", "*string")],
    },
    GoStruct {
        name: "v1.PodOS",
        decode: Decode::Object,
        fields: &[f("Name", "name", "v1.OSName")],
    },
    GoStruct {
        name: "v1.PodReadinessGate",
        decode: Decode::Object,
        fields: &[f("ConditionType", "conditionType", "v1.PodConditionType")],
    },
    GoStruct {
        name: "v1.PodResourceClaim",
        decode: Decode::Object,
        fields: &[
            f("Name", "name", "string"),
            f("ResourceClaimName", "resourceClaimName", "*string"),
            f(
                "ResourceClaimTemplateName",
                "resourceClaimTemplateName",
                "*string",
            ),
        ],
    },
    GoStruct {
        name: "v1.PodSchedulingGate",
        decode: Decode::Object,
        fields: &[f("Name", "name", "string")],
    },
    GoStruct {
        name: "v1.PodSchedulingGroup",
        decode: Decode::Object,
        fields: &[f("PodGroupName", "podGroupName", "*string")],
    },
    GoStruct {
        name: "v1.PodSecurityContext",
        decode: Decode::Object,
        fields: &[
            f("SELinuxOptions", "seLinuxOptions", "*v1.SELinuxOptions"),
            f(
                "WindowsOptions",
                "windowsOptions",
                "*v1.WindowsSecurityContextOptions",
            ),
            f("RunAsUser", "runAsUser", "*int64"),
            f("RunAsGroup", "runAsGroup", "*int64"),
            f("RunAsNonRoot", "runAsNonRoot", "*bool"),
            f("SupplementalGroups", "supplementalGroups", "[]int64"),
            f(
                "SupplementalGroupsPolicy",
                "supplementalGroupsPolicy",
                "*v1.SupplementalGroupsPolicy",
            ),
            f("FSGroup", "fsGroup", "*int64"),
            f("Sysctls", "sysctls", "[]v1.Sysctl"),
            f(
                "FSGroupChangePolicy",
                "fsGroupChangePolicy",
                "*v1.PodFSGroupChangePolicy",
            ),
            f("SeccompProfile", "seccompProfile", "*v1.SeccompProfile"),
            f("AppArmorProfile", "appArmorProfile", "*v1.AppArmorProfile"),
            f(
                "SELinuxChangePolicy",
                "seLinuxChangePolicy",
                "*v1.PodSELinuxChangePolicy",
            ),
        ],
    },
    GoStruct {
        name: "v1.PodSpec",
        decode: Decode::Object,
        fields: &[
            f("Volumes", "volumes", "[]v1.Volume"),
            f("InitContainers", "initContainers", "[]v1.Container"),
            f("Containers", "containers", "[]v1.Container"),
            f(
                "EphemeralContainers",
                "ephemeralContainers",
                "[]v1.EphemeralContainer",
            ),
            f("RestartPolicy", "restartPolicy", "v1.RestartPolicy"),
            f(
                "TerminationGracePeriodSeconds",
                "terminationGracePeriodSeconds",
                "*int64",
            ),
            f("ActiveDeadlineSeconds", "activeDeadlineSeconds", "*int64"),
            f("DNSPolicy", "dnsPolicy", "v1.DNSPolicy"),
            f("NodeSelector", "nodeSelector", "map[string]string"),
            f("ServiceAccountName", "serviceAccountName", "string"),
            f("DeprecatedServiceAccount", "serviceAccount", "string"),
            f(
                "AutomountServiceAccountToken",
                "automountServiceAccountToken",
                "*bool",
            ),
            f("NodeName", "nodeName", "string"),
            f("HostNetwork", "hostNetwork", "bool"),
            f("HostPID", "hostPID", "bool"),
            f("HostIPC", "hostIPC", "bool"),
            f("ShareProcessNamespace", "shareProcessNamespace", "*bool"),
            f(
                "SecurityContext",
                "securityContext",
                "*v1.PodSecurityContext",
            ),
            f(
                "ImagePullSecrets",
                "imagePullSecrets",
                "[]v1.LocalObjectReference",
            ),
            f("Hostname", "hostname", "string"),
            f("Subdomain", "subdomain", "string"),
            f("Affinity", "affinity", "*v1.Affinity"),
            f("SchedulerName", "schedulerName", "string"),
            f("Tolerations", "tolerations", "[]v1.Toleration"),
            f("HostAliases", "hostAliases", "[]v1.HostAlias"),
            f("PriorityClassName", "priorityClassName", "string"),
            f("Priority", "priority", "*int32"),
            f("DNSConfig", "dnsConfig", "*v1.PodDNSConfig"),
            f("ReadinessGates", "readinessGates", "[]v1.PodReadinessGate"),
            f("RuntimeClassName", "runtimeClassName", "*string"),
            f("EnableServiceLinks", "enableServiceLinks", "*bool"),
            f(
                "PreemptionPolicy",
                "preemptionPolicy",
                "*v1.PreemptionPolicy",
            ),
            f("Overhead", "overhead", "v1.ResourceList"),
            f(
                "TopologySpreadConstraints",
                "topologySpreadConstraints",
                "[]v1.TopologySpreadConstraint",
            ),
            f("SetHostnameAsFQDN", "setHostnameAsFQDN", "*bool"),
            f("OS", "os", "*v1.PodOS"),
            f("HostUsers", "hostUsers", "*bool"),
            f(
                "SchedulingGates",
                "schedulingGates",
                "[]v1.PodSchedulingGate",
            ),
            f("ResourceClaims", "resourceClaims", "[]v1.PodResourceClaim"),
            f("Resources", "resources", "*v1.ResourceRequirements"),
            f("HostnameOverride", "hostnameOverride", "*string"),
            f(
                "SchedulingGroup",
                "schedulingGroup",
                "*v1.PodSchedulingGroup",
            ),
        ],
    },
    GoStruct {
        name: "v1.PodTemplateSpec",
        decode: Decode::Object,
        fields: &[
            f("ObjectMeta", "metadata", "v1.ObjectMeta"),
            f("Spec", "spec", "v1.PodSpec"),
        ],
    },
    GoStruct {
        name: "v1.PortworxVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("VolumeID", "volumeID", "string"),
            f("FSType", "fsType", "string"),
            f("ReadOnly", "readOnly", "bool"),
        ],
    },
    GoStruct {
        name: "v1.PreferredSchedulingTerm",
        decode: Decode::Object,
        fields: &[
            f("Weight", "weight", "int32"),
            f("Preference", "preference", "v1.NodeSelectorTerm"),
        ],
    },
    GoStruct {
        name: "v1.Probe",
        decode: Decode::Object,
        fields: &[
            inline("ProbeHandler", "v1.ProbeHandler"),
            f("InitialDelaySeconds", "initialDelaySeconds", "int32"),
            f("TimeoutSeconds", "timeoutSeconds", "int32"),
            f("PeriodSeconds", "periodSeconds", "int32"),
            f("SuccessThreshold", "successThreshold", "int32"),
            f("FailureThreshold", "failureThreshold", "int32"),
            f(
                "TerminationGracePeriodSeconds",
                "terminationGracePeriodSeconds",
                "*int64",
            ),
        ],
    },
    GoStruct {
        name: "v1.ProbeHandler",
        decode: Decode::Object,
        fields: &[
            f("Exec", "exec", "*v1.ExecAction"),
            f("HTTPGet", "httpGet", "*v1.HTTPGetAction"),
            f("TCPSocket", "tcpSocket", "*v1.TCPSocketAction"),
            f("GRPC", "grpc", "*v1.GRPCAction"),
        ],
    },
    GoStruct {
        name: "v1.ProjectedVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("Sources", "sources", "[]v1.VolumeProjection"),
            f("DefaultMode", "defaultMode", "*int32"),
        ],
    },
    GoStruct {
        name: "v1.QuobyteVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("Registry", "registry", "string"),
            f("Volume", "volume", "string"),
            f("ReadOnly", "readOnly", "bool"),
            f("User", "user", "string"),
            f("Group", "group", "string"),
            f("Tenant", "tenant", "string"),
        ],
    },
    GoStruct {
        name: "v1.RBDVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("CephMonitors", "monitors", "[]string"),
            f("RBDImage", "image", "string"),
            f("FSType", "fsType", "string"),
            f("RBDPool", "pool", "string"),
            f("RadosUser", "user", "string"),
            f("Keyring", "keyring", "string"),
            f("SecretRef", "secretRef", "*v1.LocalObjectReference"),
            f("ReadOnly", "readOnly", "bool"),
        ],
    },
    GoStruct {
        name: "v1.ResourceClaim",
        decode: Decode::Object,
        fields: &[
            f("Name", "name", "string"),
            f("Request", "request", "string"),
        ],
    },
    GoStruct {
        name: "v1.ResourceFieldSelector",
        decode: Decode::Object,
        fields: &[
            f("ContainerName", "containerName", "string"),
            f("Resource", "resource", "string"),
            f("Divisor", "divisor", "resource.Quantity"),
        ],
    },
    GoStruct {
        name: "v1.ResourceRequirements",
        decode: Decode::Object,
        fields: &[
            f("Limits", "limits", "v1.ResourceList"),
            f("Requests", "requests", "v1.ResourceList"),
            f("Claims", "claims", "[]v1.ResourceClaim"),
        ],
    },
    GoStruct {
        name: "v1.SELinuxOptions",
        decode: Decode::Object,
        fields: &[
            f("User", "user", "string"),
            f("Role", "role", "string"),
            f("Type", "type", "string"),
            f("Level", "level", "string"),
        ],
    },
    GoStruct {
        name: "v1.ScaleIOVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("Gateway", "gateway", "string"),
            f("System", "system", "string"),
            f("SecretRef", "secretRef", "*v1.LocalObjectReference"),
            f("SSLEnabled", "sslEnabled", "bool"),
            f("ProtectionDomain", "protectionDomain", "string"),
            f("StoragePool", "storagePool", "string"),
            f("StorageMode", "storageMode", "string"),
            f("VolumeName", "volumeName", "string"),
            f("FSType", "fsType", "string"),
            f("ReadOnly", "readOnly", "bool"),
        ],
    },
    GoStruct {
        name: "v1.SeccompProfile",
        decode: Decode::Object,
        fields: &[
            f("Type", "type", "v1.SeccompProfileType"),
            f("LocalhostProfile", "localhostProfile", "*string"),
        ],
    },
    GoStruct {
        name: "v1.SecretEnvSource",
        decode: Decode::Object,
        fields: &[
            inline("LocalObjectReference", "v1.LocalObjectReference"),
            f("Optional", "optional", "*bool"),
        ],
    },
    GoStruct {
        name: "v1.SecretKeySelector",
        decode: Decode::Object,
        fields: &[
            inline("LocalObjectReference", "v1.LocalObjectReference"),
            f("Key", "key", "string"),
            f("Optional", "optional", "*bool"),
        ],
    },
    GoStruct {
        name: "v1.SecretProjection",
        decode: Decode::Object,
        fields: &[
            inline("LocalObjectReference", "v1.LocalObjectReference"),
            f("Items", "items", "[]v1.KeyToPath"),
            f("Optional", "optional", "*bool"),
        ],
    },
    GoStruct {
        name: "v1.SecretVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("SecretName", "secretName", "string"),
            f("Items", "items", "[]v1.KeyToPath"),
            f("DefaultMode", "defaultMode", "*int32"),
            f("Optional", "optional", "*bool"),
        ],
    },
    GoStruct {
        name: "v1.SecurityContext",
        decode: Decode::Object,
        fields: &[
            f("Capabilities", "capabilities", "*v1.Capabilities"),
            f("Privileged", "privileged", "*bool"),
            f("SELinuxOptions", "seLinuxOptions", "*v1.SELinuxOptions"),
            f(
                "WindowsOptions",
                "windowsOptions",
                "*v1.WindowsSecurityContextOptions",
            ),
            f("RunAsUser", "runAsUser", "*int64"),
            f("RunAsGroup", "runAsGroup", "*int64"),
            f("RunAsNonRoot", "runAsNonRoot", "*bool"),
            f("ReadOnlyRootFilesystem", "readOnlyRootFilesystem", "*bool"),
            f(
                "AllowPrivilegeEscalation",
                "allowPrivilegeEscalation",
                "*bool",
            ),
            f("ProcMount", "procMount", "*v1.ProcMountType"),
            f("SeccompProfile", "seccompProfile", "*v1.SeccompProfile"),
            f("AppArmorProfile", "appArmorProfile", "*v1.AppArmorProfile"),
        ],
    },
    GoStruct {
        name: "v1.ServiceAccountTokenProjection",
        decode: Decode::Object,
        fields: &[
            f("Audience", "audience", "string"),
            f("ExpirationSeconds", "expirationSeconds", "*int64"),
            f("Path", "path", "string"),
        ],
    },
    GoStruct {
        name: "v1.SleepAction",
        decode: Decode::Object,
        fields: &[f("Seconds", "seconds", "int64")],
    },
    GoStruct {
        name: "v1.StorageOSVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("VolumeName", "volumeName", "string"),
            f("VolumeNamespace", "volumeNamespace", "string"),
            f("FSType", "fsType", "string"),
            f("ReadOnly", "readOnly", "bool"),
            f("SecretRef", "secretRef", "*v1.LocalObjectReference"),
        ],
    },
    GoStruct {
        name: "v1.Sysctl",
        decode: Decode::Object,
        fields: &[f("Name", "name", "string"), f("Value", "value", "string")],
    },
    GoStruct {
        name: "v1.TCPSocketAction",
        decode: Decode::Object,
        fields: &[
            f("Port", "port", "intstr.IntOrString"),
            f("Host", "host", "string"),
        ],
    },
    GoStruct {
        name: "v1.Time",
        decode: Decode::Time,
        fields: &[f("Time", "Time", "time.Time")],
    },
    GoStruct {
        name: "v1.Toleration",
        decode: Decode::Object,
        fields: &[
            f("Key", "key", "string"),
            f("Operator", "operator", "v1.TolerationOperator"),
            f("Value", "value", "string"),
            f("Effect", "effect", "v1.TaintEffect"),
            f("TolerationSeconds", "tolerationSeconds", "*int64"),
        ],
    },
    GoStruct {
        name: "v1.TopologySpreadConstraint",
        decode: Decode::Object,
        fields: &[
            f("MaxSkew", "maxSkew", "int32"),
            f("TopologyKey", "topologyKey", "string"),
            f(
                "WhenUnsatisfiable",
                "whenUnsatisfiable",
                "v1.UnsatisfiableConstraintAction",
            ),
            f("LabelSelector", "labelSelector", "*v1.LabelSelector"),
            f("MinDomains", "minDomains", "*int32"),
            f(
                "NodeAffinityPolicy",
                "nodeAffinityPolicy",
                "*v1.NodeInclusionPolicy",
            ),
            f(
                "NodeTaintsPolicy",
                "nodeTaintsPolicy",
                "*v1.NodeInclusionPolicy",
            ),
            f("MatchLabelKeys", "matchLabelKeys", "[]string"),
        ],
    },
    GoStruct {
        name: "v1.TypedLocalObjectReference",
        decode: Decode::Object,
        fields: &[
            f("APIGroup", "apiGroup", "*string"),
            f("Kind", "kind", "string"),
            f("Name", "name", "string"),
        ],
    },
    GoStruct {
        name: "v1.TypedObjectReference",
        decode: Decode::Object,
        fields: &[
            f("APIGroup", "apiGroup", "*string"),
            f("Kind", "kind", "string"),
            f("Name", "name", "string"),
            f("Namespace", "namespace", "*string"),
        ],
    },
    GoStruct {
        name: "v1.Volume",
        decode: Decode::Object,
        fields: &[
            f("Name", "name", "string"),
            inline("VolumeSource", "v1.VolumeSource"),
        ],
    },
    GoStruct {
        name: "v1.VolumeDevice",
        decode: Decode::Object,
        fields: &[
            f("Name", "name", "string"),
            f("DevicePath", "devicePath", "string"),
        ],
    },
    GoStruct {
        name: "v1.VolumeMount",
        decode: Decode::Object,
        fields: &[
            f("Name", "name", "string"),
            f("ReadOnly", "readOnly", "bool"),
            f(
                "RecursiveReadOnly",
                "recursiveReadOnly",
                "*v1.RecursiveReadOnlyMode",
            ),
            f("MountPath", "mountPath", "string"),
            f("SubPath", "subPath", "string"),
            f(
                "MountPropagation",
                "mountPropagation",
                "*v1.MountPropagationMode",
            ),
            f("SubPathExpr", "subPathExpr", "string"),
        ],
    },
    GoStruct {
        name: "v1.VolumeProjection",
        decode: Decode::Object,
        fields: &[
            f("Secret", "secret", "*v1.SecretProjection"),
            f("DownwardAPI", "downwardAPI", "*v1.DownwardAPIProjection"),
            f("ConfigMap", "configMap", "*v1.ConfigMapProjection"),
            f(
                "ServiceAccountToken",
                "serviceAccountToken",
                "*v1.ServiceAccountTokenProjection",
            ),
            f(
                "ClusterTrustBundle",
                "clusterTrustBundle",
                "*v1.ClusterTrustBundleProjection",
            ),
            f(
                "PodCertificate",
                "podCertificate",
                "*v1.PodCertificateProjection",
            ),
        ],
    },
    GoStruct {
        name: "v1.VolumeResourceRequirements",
        decode: Decode::Object,
        fields: &[
            f("Limits", "limits", "v1.ResourceList"),
            f("Requests", "requests", "v1.ResourceList"),
        ],
    },
    GoStruct {
        name: "v1.VolumeSource",
        decode: Decode::Object,
        fields: &[
            f("HostPath", "hostPath", "*v1.HostPathVolumeSource"),
            f("EmptyDir", "emptyDir", "*v1.EmptyDirVolumeSource"),
            f(
                "GCEPersistentDisk",
                "gcePersistentDisk",
                "*v1.GCEPersistentDiskVolumeSource",
            ),
            f(
                "AWSElasticBlockStore",
                "awsElasticBlockStore",
                "*v1.AWSElasticBlockStoreVolumeSource",
            ),
            f("GitRepo", "gitRepo", "*v1.GitRepoVolumeSource"),
            f("Secret", "secret", "*v1.SecretVolumeSource"),
            f("NFS", "nfs", "*v1.NFSVolumeSource"),
            f("ISCSI", "iscsi", "*v1.ISCSIVolumeSource"),
            f("Glusterfs", "glusterfs", "*v1.GlusterfsVolumeSource"),
            f(
                "PersistentVolumeClaim",
                "persistentVolumeClaim",
                "*v1.PersistentVolumeClaimVolumeSource",
            ),
            f("RBD", "rbd", "*v1.RBDVolumeSource"),
            f("FlexVolume", "flexVolume", "*v1.FlexVolumeSource"),
            f("Cinder", "cinder", "*v1.CinderVolumeSource"),
            f("CephFS", "cephfs", "*v1.CephFSVolumeSource"),
            f("Flocker", "flocker", "*v1.FlockerVolumeSource"),
            f("DownwardAPI", "downwardAPI", "*v1.DownwardAPIVolumeSource"),
            f("FC", "fc", "*v1.FCVolumeSource"),
            f("AzureFile", "azureFile", "*v1.AzureFileVolumeSource"),
            f("ConfigMap", "configMap", "*v1.ConfigMapVolumeSource"),
            f(
                "VsphereVolume",
                "vsphereVolume",
                "*v1.VsphereVirtualDiskVolumeSource",
            ),
            f("Quobyte", "quobyte", "*v1.QuobyteVolumeSource"),
            f("AzureDisk", "azureDisk", "*v1.AzureDiskVolumeSource"),
            f(
                "PhotonPersistentDisk",
                "photonPersistentDisk",
                "*v1.PhotonPersistentDiskVolumeSource",
            ),
            f("Projected", "projected", "*v1.ProjectedVolumeSource"),
            f(
                "PortworxVolume",
                "portworxVolume",
                "*v1.PortworxVolumeSource",
            ),
            f("ScaleIO", "scaleIO", "*v1.ScaleIOVolumeSource"),
            f("StorageOS", "storageos", "*v1.StorageOSVolumeSource"),
            f("CSI", "csi", "*v1.CSIVolumeSource"),
            f("Ephemeral", "ephemeral", "*v1.EphemeralVolumeSource"),
            f("Image", "image", "*v1.ImageVolumeSource"),
        ],
    },
    GoStruct {
        name: "v1.VsphereVirtualDiskVolumeSource",
        decode: Decode::Object,
        fields: &[
            f("VolumePath", "volumePath", "string"),
            f("FSType", "fsType", "string"),
            f("StoragePolicyName", "storagePolicyName", "string"),
            f("StoragePolicyID", "storagePolicyID", "string"),
        ],
    },
    GoStruct {
        name: "v1.WeightedPodAffinityTerm",
        decode: Decode::Object,
        fields: &[
            f("Weight", "weight", "int32"),
            f("PodAffinityTerm", "podAffinityTerm", "v1.PodAffinityTerm"),
        ],
    },
    GoStruct {
        name: "v1.WindowsSecurityContextOptions",
        decode: Decode::Object,
        fields: &[
            f(
                "GMSACredentialSpecName",
                "gmsaCredentialSpecName",
                "*string",
            ),
            f("GMSACredentialSpec", "gmsaCredentialSpec", "*string"),
            f("RunAsUserName", "runAsUserName", "*string"),
            f("HostProcess", "hostProcess", "*bool"),
        ],
    },
];

/// Every named non-struct type reachable from `v1.PodTemplateSpec` and its underlying
/// type, sorted by name. `*inf.Dec` and `*time.Location` are only ever nil here (see
/// [`super::hash`]), so their layouts are not needed.
pub(crate) static NAMED: &[(&str, &str)] = &[
    ("intstr.Type", "int64"),
    ("resource.Format", "string"),
    ("resource.Scale", "int32"),
    ("types.UID", "string"),
    ("v1.AppArmorProfileType", "string"),
    ("v1.AzureDataDiskCachingMode", "string"),
    ("v1.AzureDataDiskKind", "string"),
    ("v1.Capability", "string"),
    ("v1.ContainerRestartPolicy", "string"),
    ("v1.ContainerRestartRuleAction", "string"),
    ("v1.ContainerRestartRuleOnExitCodesOperator", "string"),
    ("v1.DNSPolicy", "string"),
    ("v1.HostPathType", "string"),
    ("v1.LabelSelectorOperator", "string"),
    ("v1.ManagedFieldsOperationType", "string"),
    ("v1.MountPropagationMode", "string"),
    ("v1.NodeInclusionPolicy", "string"),
    ("v1.NodeSelectorOperator", "string"),
    ("v1.OSName", "string"),
    ("v1.PersistentVolumeAccessMode", "string"),
    ("v1.PersistentVolumeMode", "string"),
    ("v1.PodConditionType", "string"),
    ("v1.PodFSGroupChangePolicy", "string"),
    ("v1.PodSELinuxChangePolicy", "string"),
    ("v1.PreemptionPolicy", "string"),
    ("v1.ProcMountType", "string"),
    ("v1.Protocol", "string"),
    ("v1.PullPolicy", "string"),
    ("v1.RecursiveReadOnlyMode", "string"),
    ("v1.ResourceList", "map[v1.ResourceName]resource.Quantity"),
    ("v1.ResourceName", "string"),
    ("v1.ResourceResizeRestartPolicy", "string"),
    ("v1.RestartPolicy", "string"),
    ("v1.SeccompProfileType", "string"),
    ("v1.Signal", "string"),
    ("v1.StorageMedium", "string"),
    ("v1.SupplementalGroupsPolicy", "string"),
    ("v1.TaintEffect", "string"),
    ("v1.TerminationMessagePolicy", "string"),
    ("v1.TolerationOperator", "string"),
    ("v1.URIScheme", "string"),
    ("v1.UnsatisfiableConstraintAction", "string"),
];

/// The struct type of this name.
pub(crate) fn struct_type(name: &str) -> Option<&'static GoStruct> {
    STRUCTS
        .binary_search_by(|s| s.name.cmp(name))
        .ok()
        .and_then(|i| STRUCTS.get(i))
}

/// The underlying type of a named non-struct type.
pub(crate) fn underlying(name: &str) -> Option<&'static str> {
    NAMED
        .binary_search_by(|(n, _)| n.cmp(&name))
        .ok()
        .and_then(|i| NAMED.get(i))
        .map(|(_, u)| *u)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    const BASIC: &[&str] = &["string", "bool", "int32", "int64", "uint8", "uint64"];
    /// Types only ever behind a nil pointer (see the module docs of `hash`).
    const OPAQUE: &[&str] = &["inf.Dec", "time.Location"];

    /// The struct types a Go type refers to; panics on a type the table cannot resolve.
    fn structs_in(ty: &str, out: &mut Vec<&'static str>) {
        if let Some(elem) = ty.strip_prefix('*') {
            if OPAQUE.contains(&elem) {
                return;
            }
            return structs_in(elem, out);
        }
        if let Some(elem) = ty.strip_prefix("[]") {
            return structs_in(elem, out);
        }
        if let Some(rest) = ty.strip_prefix("map[") {
            let (k, v) = rest.split_once(']').unwrap();
            let key = underlying(k).unwrap_or(k);
            assert_eq!(key, "string", "map key of {ty}");
            structs_in(k, out);
            return structs_in(v, out);
        }
        if BASIC.contains(&ty) {
            return;
        }
        if let Some(s) = struct_type(ty) {
            out.push(s.name);
            return;
        }
        let u = underlying(ty).unwrap_or_else(|| panic!("no layout for {ty}"));
        structs_in(u, out)
    }

    #[test]
    fn tables_are_sorted_for_binary_search() {
        assert!(STRUCTS.windows(2).all(|w| w[0].name < w[1].name));
        assert!(NAMED.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(STRUCTS.iter().all(|s| struct_type(s.name).is_some()));
        assert_eq!(
            underlying("v1.ResourceList"),
            Some("map[v1.ResourceName]resource.Quantity")
        );
        assert!(struct_type("v1.Nope").is_none());
    }

    #[test]
    fn every_type_resolves_and_every_struct_is_reachable() {
        let mut seen = BTreeSet::new();
        let mut todo = vec!["v1.PodTemplateSpec"];
        while let Some(name) = todo.pop() {
            if !seen.insert(name) {
                continue;
            }
            let s = struct_type(name).unwrap();
            for f in s.fields {
                structs_in(f.ty, &mut todo);
                if f.json == Json::Inline {
                    assert_eq!(
                        struct_type(f.ty).map(|s| s.decode),
                        Some(Decode::Object),
                        "{name}.{}",
                        f.go
                    );
                }
            }
        }
        let all: BTreeSet<_> = STRUCTS.iter().map(|s| s.name).collect();
        assert_eq!(seen, all);
        assert_eq!(STRUCTS.len(), 120);
    }

    /// encoding/json resolves a member through the struct's fields and those promoted from
    /// inline structs, exactly or case-insensitively; with no two such names equal under
    /// case folding, no precedence rule is ever needed.
    #[test]
    fn json_names_are_unique_under_case_folding() {
        fn names(s: &GoStruct, out: &mut Vec<String>) {
            for f in s.fields {
                match f.json {
                    Json::Key(k) => out.push(k.to_ascii_uppercase()),
                    Json::Inline => names(struct_type(f.ty).unwrap(), out),
                    Json::Skip => {}
                }
            }
        }
        for s in STRUCTS.iter().filter(|s| s.decode == Decode::Object) {
            let mut n = Vec::new();
            names(s, &mut n);
            let unique: BTreeSet<_> = n.iter().collect();
            assert_eq!(unique.len(), n.len(), "{}", s.name);
        }
    }

    #[test]
    fn spot_checks_against_upstream_v1_36() {
        let count = |n| struct_type(n).unwrap().fields.len();
        assert_eq!(count("v1.PodSpec"), 42);
        assert_eq!(count("v1.Container"), 25);
        assert_eq!(count("v1.VolumeSource"), 30);
        assert_eq!(count("v1.ObjectMeta"), 15);
        let last = |n| struct_type(n).unwrap().fields.last().unwrap().go;
        assert_eq!(last("v1.PodSpec"), "SchedulingGroup");
        assert_eq!(last("v1.VolumeSource"), "Image");
        let volume = struct_type("v1.Volume").unwrap();
        assert_eq!(volume.fields[1].json, Json::Inline);
        assert_eq!(volume.fields[1].go, "VolumeSource");
    }
}
