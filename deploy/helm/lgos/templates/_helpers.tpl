{{/* Names, labels and the pieces both Deployments share. */}}

{{- define "lgos.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's full name, at most 63 characters (a DNS label). */}}
{{- define "lgos.fullname" -}}
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

{{/* "<fullname>-<suffix>", at most 63 characters. */}}
{{- define "lgos.component" -}}
{{- $full := include "lgos.fullname" .root | trunc (int (sub 62 (len .suffix))) | trimSuffix "-" }}
{{- printf "%s-%s" $full .suffix }}
{{- end }}

{{- define "lgos.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The labels a Deployment's selector uses: never change after install. */}}
{{- define "lgos.selectorLabels" -}}
app.kubernetes.io/name: {{ include "lgos.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "lgos.labels" -}}
helm.sh/chart: {{ include "lgos.chart" .root }}
{{ include "lgos.selectorLabels" . }}
app.kubernetes.io/part-of: lgos
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end }}

{{- define "lgos.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "lgos.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "lgos.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion (toString .Values.image.tag)) }}
{{- end }}

{{/* The Secret the chart creates for the PostgreSQL URI and the Hatchet token. */}}
{{- define "lgos.secretName" -}}
{{- include "lgos.component" (dict "root" . "suffix" "connections") }}
{{- end }}

{{- define "lgos.postgresSecretName" -}}
{{- if .Values.postgres.existingSecret }}
{{- .Values.postgres.existingSecret }}
{{- else }}
{{- include "lgos.secretName" . }}
{{- end }}
{{- end }}

{{- define "lgos.hatchetSecretName" -}}
{{- if .Values.hatchet.existingSecret }}
{{- .Values.hatchet.existingSecret }}
{{- else }}
{{- include "lgos.secretName" . }}
{{- end }}
{{- end }}

{{- define "lgos.apiKeysSecretName" -}}
{{- if .Values.apiKeys.existingSecret }}
{{- .Values.apiKeys.existingSecret }}
{{- else }}
{{- include "lgos.component" (dict "root" . "suffix" "api-keys") }}
{{- end }}
{{- end }}

{{/* Whether the chart creates the connections Secret (something to put in it). */}}
{{- define "lgos.createSecret" -}}
{{- if or (not .Values.postgres.existingSecret) (and .Values.hatchet.enabled (not .Values.hatchet.existingSecret)) }}true{{ end }}
{{- end }}

{{/* Refuse values that cannot run, with a message that says what to set. */}}
{{- define "lgos.validate" -}}
{{- if and (not .Values.postgres.uri) (not .Values.postgres.existingSecret) }}
{{- fail "postgres: set postgres.uri or postgres.existingSecret (LGOS keeps checkpoints, leases and background runs in PostgreSQL)" }}
{{- end }}
{{- if and .Values.postgres.uri .Values.postgres.existingSecret }}
{{- fail "postgres: set postgres.uri or postgres.existingSecret, not both" }}
{{- end }}
{{- if .Values.hatchet.enabled }}
{{- if and (not .Values.hatchet.token) (not .Values.hatchet.existingSecret) }}
{{- fail "hatchet: set hatchet.token or hatchet.existingSecret (the Hatchet client token), or hatchet.enabled=false" }}
{{- end }}
{{- if and .Values.hatchet.token .Values.hatchet.existingSecret }}
{{- fail "hatchet: set hatchet.token or hatchet.existingSecret, not both" }}
{{- end }}
{{- end }}
{{- if .Values.apiKeys.enabled }}
{{- if and (not .Values.apiKeys.keys) (not .Values.apiKeys.existingSecret) }}
{{- fail "apiKeys: set apiKeys.keys or apiKeys.existingSecret, or apiKeys.enabled=false" }}
{{- end }}
{{- if and .Values.apiKeys.keys .Values.apiKeys.existingSecret }}
{{- fail "apiKeys: set apiKeys.keys or apiKeys.existingSecret, not both" }}
{{- end }}
{{- end }}
{{- $api := .Values.api }}
{{- if and (not (kindIs "invalid" $api.terminationGracePeriodSeconds)) (le (int $api.terminationGracePeriodSeconds) (add (int $api.preStopSleepSeconds) (int $api.shutdownGraceSeconds))) }}
{{- fail (printf "api.terminationGracePeriodSeconds (%v) must exceed api.preStopSleepSeconds + api.shutdownGraceSeconds (%v): the pod would be killed before its requests end" $api.terminationGracePeriodSeconds (add (int $api.preStopSleepSeconds) (int $api.shutdownGraceSeconds))) }}
{{- end }}
{{- $worker := .Values.worker }}
{{- if and (not (kindIs "invalid" $worker.terminationGracePeriodSeconds)) (le (int $worker.terminationGracePeriodSeconds) (int $worker.shutdownGraceSeconds)) }}
{{- fail (printf "worker.terminationGracePeriodSeconds (%v) must exceed worker.shutdownGraceSeconds (%v): the pod would be killed before its runs end" $worker.terminationGracePeriodSeconds $worker.shutdownGraceSeconds) }}
{{- end }}
{{- if and $api.autoscaling.enabled (gt (int $api.autoscaling.minReplicas) (int $api.autoscaling.maxReplicas)) }}
{{- fail "api.autoscaling: minReplicas exceeds maxReplicas" }}
{{- end }}
{{- if and $api.autoscaling.enabled (kindIs "invalid" $api.autoscaling.targetCPUUtilizationPercentage) (kindIs "invalid" $api.autoscaling.targetMemoryUtilizationPercentage) }}
{{- fail "api.autoscaling: set targetCPUUtilizationPercentage or targetMemoryUtilizationPercentage" }}
{{- end }}
{{- end }}

{{/*
The API pod's termination grace period: preStop sleep, LGOS's shutdown grace,
the 15 s LGOS waits for stopped runs to end, Uvicorn's wait for connections,
and 10 s to spare; or the value set.
*/}}
{{- define "lgos.apiTerminationGrace" -}}
{{- $api := .Values.api }}
{{- if kindIs "invalid" $api.terminationGracePeriodSeconds }}
{{- add (int $api.preStopSleepSeconds) (int $api.shutdownGraceSeconds) 15 (int $api.uvicornGracefulTimeoutSeconds) 10 }}
{{- else }}
{{- int $api.terminationGracePeriodSeconds }}
{{- end }}
{{- end }}

{{/* The variables the API and the worker share (a list of EnvVar). */}}
{{- define "lgos.sharedEnv" -}}
- name: LGOS_POSTGRES_URI
  valueFrom:
    secretKeyRef:
      name: {{ include "lgos.postgresSecretName" . }}
      key: {{ .Values.postgres.secretKey }}
- name: LGOS_POSTGRES_POOL_SIZE
  value: {{ .Values.postgres.poolSize | quote }}
- name: LGOS_BACKGROUND_ENGINE
  value: {{ ternary "hatchet" "memory" .Values.hatchet.enabled | quote }}
{{- if .Values.hatchet.enabled }}
- name: HATCHET_CLIENT_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "lgos.hatchetSecretName" . }}
      key: {{ .Values.hatchet.secretKey }}
{{- with .Values.hatchet.hostPort }}
- name: HATCHET_CLIENT_HOST_PORT
  value: {{ . | quote }}
{{- end }}
{{- with .Values.hatchet.serverUrl }}
- name: HATCHET_CLIENT_SERVER_URL
  value: {{ . | quote }}
{{- end }}
- name: HATCHET_CLIENT_TLS_STRATEGY
  value: {{ .Values.hatchet.tlsStrategy | quote }}
{{- with .Values.hatchet.namespace }}
- name: HATCHET_CLIENT_NAMESPACE
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{- range $name, $value := .Values.env }}
- name: {{ $name }}
  value: {{ toString $value | quote }}
{{- end }}
{{- end }}

{{/* Pod-level placement and security, shared by both pods; . is (dict "root" $ "pod" <api or worker values>). */}}
{{- define "lgos.podPlacement" -}}
{{- with .pod.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .pod.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .pod.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .pod.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* A PodDisruptionBudget's limit: minAvailable when set, else maxUnavailable. */}}
{{- define "lgos.pdbLimit" -}}
{{- if not (kindIs "invalid" .minAvailable) }}
minAvailable: {{ .minAvailable }}
{{- else }}
maxUnavailable: {{ .maxUnavailable }}
{{- end }}
{{- end }}

{{/* The worker pod's: LGOS's shutdown grace, 15 s for stopped runs, 10 s to spare; or the value set. */}}
{{- define "lgos.workerTerminationGrace" -}}
{{- $worker := .Values.worker }}
{{- if kindIs "invalid" $worker.terminationGracePeriodSeconds }}
{{- add (int $worker.shutdownGraceSeconds) 15 10 }}
{{- else }}
{{- int $worker.terminationGracePeriodSeconds }}
{{- end }}
{{- end }}

{{/* The worker's metrics port, or nothing (metrics off, or only on the API port). */}}
{{- define "lgos.workerMetricsPort" -}}
{{- if and .Values.metrics.enabled .Values.metrics.port }}
{{- default .Values.metrics.port .Values.metrics.workerPort }}
{{- end }}
{{- end }}
