{{/* The chart's name. */}}
{{- define "konnect-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The full name of the release's resources: the release name, followed by the
chart name unless the release name already contains it.
*/}}
{{- define "konnect-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels of every resource: commonLabels, then the chart's own. */}}
{{- define "konnect-operator.labels" -}}
{{ include "konnect-operator.commonLabels" . -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "konnect-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
commonLabels, one per line (each followed by a newline), for every resource
and the pods; the chart's own labels cannot be among them.
*/}}
{{- define "konnect-operator.commonLabels" -}}
{{- range $key, $value := .Values.commonLabels }}
{{- if or (hasPrefix "app.kubernetes.io/" $key) (eq $key "helm.sh/chart") }}
{{- fail (printf "commonLabels may not set %s: the chart sets it, and selects its pods by the app.kubernetes.io labels" $key) }}
{{- end }}
{{- printf "%s: %s\n" $key (quote $value) }}
{{- end }}
{{- end }}

{{/*
The image pull Secrets: image.pullSecrets (names, as Kong's charts take
them) and imagePullSecrets ({name: …} objects, as before), once each.
*/}}
{{- define "konnect-operator.imagePullSecrets" -}}
{{- $names := list }}
{{- range .Values.image.pullSecrets }}{{ $names = append $names . }}{{ end }}
{{- range .Values.imagePullSecrets }}{{ $names = append $names .name }}{{ end }}
{{- range uniq $names }}
- name: {{ . }}
{{- end }}
{{- end }}

{{/* Labels that select the operator's pods. */}}
{{- define "konnect-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "konnect-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end }}

{{/* The ServiceAccount the operator runs as. */}}
{{- define "konnect-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "konnect-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The image reference: repository@digest, else repository:tag. */}}
{{- define "konnect-operator.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
What the operator does with the namespaced kinds, granted cluster-wide by a
ClusterRole or per watched namespace by Roles: the same rules as
manifests/rbac/cluster and manifests/rbac/namespace (e2e/chart_test.go checks
that they stay equal).
  list, watch        every kind it reads (shared informers)
  patch              the kinds it reconciles: finalizers (a JSON patch
                     of metadata.finalizers alone)
  update             the objects it manages itself (bindings, credentials)
  update on /status  the kinds it reconciles: status, conditions, IDs
  create, delete     the objects it manages itself
  events             create, patch (client-go event recorder)
Never: get, or a patch of anything but metadata.finalizers, or a delete
of user objects; of Secrets, only their
finalizers are written (see below).
*/}}
{{- define "konnect-operator.namespacedRules" -}}
- apiGroups: [konnect.konghq.com]
  resources:
  - konnectapiauthconfigurations
  - konnectgatewaycontrolplanes
  - konnectcloudgatewaynetworks
  - konnectcloudgatewaydataplanegroupconfigurations
  - konnectcloudgatewaytransitgateways
  - konnectconfigstores
  - portals
  - portalpages
  - portalteams
  - portalcustomizations
  - portalcustomdomains
  - portalemailconfigs
  - portalidentityproviderrequests
  - portalipallowlists
  - konnecteventgateways
  verbs: [list, watch, update, patch]
- apiGroups: [konnect.konghq.com]
  resources:
  - konnectapiauthconfigurations/status
  - konnectgatewaycontrolplanes/status
  - konnectcloudgatewaynetworks/status
  - konnectcloudgatewaydataplanegroupconfigurations/status
  - konnectcloudgatewaytransitgateways/status
  - konnectconfigstores/status
  - portals/status
  - portalpages/status
  - portalteams/status
  - portalcustomizations/status
  - portalcustomdomains/status
  - portalemailconfigs/status
  - portalidentityproviderrequests/status
  - portalipallowlists/status
  - konnecteventgateways/status
  verbs: [update]
- apiGroups: [configuration.konghq.com]
  resources:
  - kongservices
  - kongroutes
  - kongupstreams
  - kongtargets
  - kongcertificates
  - kongcacertificates
  - kongsnis
  - kongkeys
  - kongkeysets
  - kongdataplaneclientcertificates
  - kongconsumers
  - kongconsumergroups
  - kongpluginbindings
  - kongcredentialbasicauths
  - kongcredentialapikeys
  - kongcredentialacls
  - kongcredentialjwts
  - kongcredentialhmacs
  - eventgatewaybackendclusters
  - eventgatewaydataplanecertificates
  - eventgatewaylisteners
  - eventgatewaylistenerpolicies
  - eventgatewayschemaregistries
  - eventgatewayvirtualclusters
  - eventgatewayvirtualclusterpolicies
  - eventgatewayvirtualclusterconsumepolicies
  - eventgatewayvirtualclusterproducepolicies
  verbs: [list, watch, update, patch]
- apiGroups: [configuration.konghq.com]
  resources:
  - kongservices/status
  - kongroutes/status
  - kongupstreams/status
  - kongtargets/status
  - kongcertificates/status
  - kongcacertificates/status
  - kongsnis/status
  - kongkeys/status
  - kongkeysets/status
  - kongdataplaneclientcertificates/status
  - kongconsumers/status
  - kongconsumergroups/status
  - kongpluginbindings/status
  - kongcredentialbasicauths/status
  - kongcredentialapikeys/status
  - kongcredentialacls/status
  - kongcredentialjwts/status
  - kongcredentialhmacs/status
  - eventgatewaybackendclusters/status
  - eventgatewaydataplanecertificates/status
  - eventgatewaylisteners/status
  - eventgatewaylistenerpolicies/status
  - eventgatewayschemaregistries/status
  - eventgatewayvirtualclusters/status
  - eventgatewayvirtualclusterpolicies/status
  - eventgatewayvirtualclusterconsumepolicies/status
  - eventgatewayvirtualclusterproducepolicies/status
  verbs: [update]
# Managed objects: bindings made for the konghq.com/plugins annotation and
# credentials made from the Secrets a KongConsumer lists; bindings are also
# deleted with the object they target.
- apiGroups: [configuration.konghq.com]
  resources:
  - kongpluginbindings
  - kongcredentialbasicauths
  - kongcredentialapikeys
  - kongcredentialacls
  - kongcredentialjwts
  - kongcredentialhmacs
  verbs: [create, delete]
# KongPlugins carry the plugin-in-use finalizer; their status is never written.
- apiGroups: [configuration.konghq.com]
  resources:
  - kongplugins
  verbs: [list, watch, update, patch]
# Owners of managed objects, for clusters that enforce ownerReference permissions.
- apiGroups: [configuration.konghq.com]
  resources:
  - kongplugins/finalizers
  - kongconsumers/finalizers
  verbs: [update]
- apiGroups: [configuration.konghq.com]
  resources:
  - kongreferencegrants
  verbs: [list, watch]
# Secrets: list and watch with label selectors (tokens and credentials
# konghq.com/credential, TLS material konghq.com/secret=true), or with a
# field selector on the one name a certificate's secretRef gives (RBAC
# cannot restrict by label or name, the code does); get for one Secret the
# caches miss.
# patch puts the finalizer gateway.konghq.com/secret-in-use-by-konnect-resource
# on token Secrets in use, so that deleting a namespace cannot take a token
# before what needs it; the ValidatingAdmissionPolicy of
# secret-writes-policy.yaml refuses any other change of a Secret by the
# operator. Never update, create or delete.
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, list, watch, patch]
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
{{- end }}

{{/* Labels of the metrics Service, which the ServiceMonitor selects. */}}
{{- define "konnect-operator.metricsLabels" -}}
{{ include "konnect-operator.commonLabels" . -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "konnect-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: metrics
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
One operator instance: the default one (shard "", the objects without the
label konnect.konghq.com/shard) or a shard of .Values.shards. Called with
(dict "root" $ "shard" $shard).
*/}}
{{/* The name of an instance's Deployment and PodDisruptionBudget. */}}
{{- define "konnect-operator.instanceName" -}}
{{- $fullname := include "konnect-operator.fullname" .root }}
{{- if .shard }}
{{- printf "%s-%s" $fullname .shard | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $fullname }}
{{- end }}
{{- end }}

{{/*
Labels that select an instance's pods: the default instance's are those of
earlier versions; a shard's pods are component operator-shard, so that the
default instance's selector leaves them out.
*/}}
{{- define "konnect-operator.instanceSelectorLabels" -}}
{{- if .shard }}
app.kubernetes.io/name: {{ include "konnect-operator.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: operator-shard
konnect.konghq.com/shard: {{ .shard }}
{{- else }}
{{- include "konnect-operator.selectorLabels" .root }}
{{- end }}
{{- end }}
