{{/*
Shared helpers. Every component template (auth.yaml, billing.yaml, ...) builds a context with
"tradewind.ctx" and renders its ServiceAccount, Deployment, Service and PodDisruptionBudget through
the helpers below, so the security context, probes, labels and shutdown rules are the same for all.
*/}}

{{- define "tradewind.fullname" -}}
{{- if contains "tradewind" .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-tradewind" .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Name of a component's objects: <fullname>-<component>. Arg: dict root, name. */}}
{{- define "tradewind.componentFullname" -}}
{{- printf "%s-%s" (include "tradewind.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "tradewind.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: tradewind
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
{{ include "tradewind.selectorLabels" . }}
{{- end -}}

{{- define "tradewind.selectorLabels" -}}
app.kubernetes.io/name: tradewind
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/*
A component's context: dict root (the top-level .), name (kebab-case, as folder/image/label),
key (camelCase values key) and v (the default block merged with components.<key>).
*/}}
{{- define "tradewind.ctx" -}}
{{- $over := index .root.Values.components .key | default dict -}}
{{- $v := mergeOverwrite (deepCopy .root.Values.default) (deepCopy $over) -}}
{{- toJson (dict "name" .name "key" .key "v" $v) -}}
{{- end -}}

{{- define "tradewind.image" -}}
{{- $img := .v.image -}}
{{- printf "%s/%s:%s" $img.registry .name (default .root.Chart.AppVersion $img.tag) -}}
{{- end -}}

{{/* terminationGracePeriodSeconds: the service's readiness delay + shutdown deadline + margin. No preStop
     hook: Kubernetes removes the pod from the endpoints while SIGTERM is delivered, and the service
     keeps serving through its readiness delay (services/lib/src/lifecycle.ts), which is that wait. */}}
{{- define "tradewind.gracePeriod" -}}
{{- $s := .v.shutdown -}}
{{- $ms := add (int $s.readinessDelayMs) (int $s.deadlineMs) -}}
{{- add (div (add $ms 999) 1000) (int $s.graceMarginSeconds) -}}
{{- end -}}

{{/* Where the services reach NATS. */}}
{{- define "tradewind.natsUrl" -}}
{{- if .Values.nats.enabled -}}
{{- $name := ternary .Release.Name (printf "%s-nats" .Release.Name) (contains "nats" .Release.Name) -}}
{{- printf "nats://%s.%s.svc:4222" $name .Release.Namespace -}}
{{- else -}}
{{- required "externalNats.url is required when nats.enabled=false" .Values.externalNats.url -}}
{{- end -}}
{{- end -}}

{{- define "tradewind.serviceHost" -}}
{{- printf "%s.%s.svc" (include "tradewind.componentFullname" .) .root.Release.Namespace -}}
{{- end -}}

{{/* Environment every service gets. Arg: a component context. */}}
{{- define "tradewind.commonEnv" -}}
- name: NODE_ENV
  value: {{ ternary "development" "production" .root.Values.development.enabled | quote }}
- name: LOG_LEVEL
  value: {{ .v.logLevel | quote }}
- name: ADMIN_PORT
  value: {{ .v.ports.admin | quote }}
- name: SHUTDOWN_READINESS_DELAY_MS
  value: {{ .v.shutdown.readinessDelayMs | quote }}
- name: SHUTDOWN_DEADLINE_MS
  value: {{ .v.shutdown.deadlineMs | quote }}
{{- range $name, $value := .v.env }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end -}}

{{/* NATS_URL and the services' user credentials (a file from the identities Secret). */}}
{{- define "tradewind.natsEnv" -}}
- name: NATS_URL
  value: {{ include "tradewind.natsUrl" .root | quote }}
- name: NATS_CREDS
  value: /var/run/tradewind/nats/service.creds
{{- end -}}

{{/* NATS_STREAM_REPLICAS of the services that create streams (ingest: TRADES; auth, billing,
     credential-issuer: EVENTS): the bundled NATS cluster's size, so losing one server loses no
     message; externalNats.streamReplicas with your own NATS. */}}
{{- define "tradewind.streamReplicasEnv" -}}
{{- $root := .root -}}
- name: NATS_STREAM_REPLICAS
{{- if $root.Values.nats.enabled }}
  value: {{ ternary ($root.Values.nats.config.cluster.replicas | toString) "1" (and $root.Values.nats.config.cluster.enabled (gt (int $root.Values.nats.config.cluster.replicas) 1)) | quote }}
{{- else }}
  value: {{ $root.Values.externalNats.streamReplicas | default 1 | toString | quote }}
{{- end }}
{{- end -}}

{{/* DATABASE_URL: from the bundled PostgreSQL's generated password, or a Secret's url. */}}
{{- define "tradewind.databaseEnv" -}}
{{- $root := .root -}}
{{- if $root.Values.postgresql.enabled }}
{{- $host := ternary $root.Release.Name (printf "%s-postgresql" $root.Release.Name) (contains "postgresql" $root.Release.Name) }}
- name: DATABASE_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $host }}
      key: password
- name: DATABASE_URL
  value: {{ printf "postgres://%s:$(DATABASE_PASSWORD)@%s.%s.svc:5432/%s" $root.Values.postgresql.auth.username $host $root.Release.Namespace $root.Values.postgresql.auth.database | quote }}
{{- else }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ required "secrets.database is required when postgresql.enabled=false" $root.Values.secrets.database }}
      key: url
{{- end }}
{{- end -}}

{{/* REDIS_URL: from the bundled Redis's generated password, or a Secret's url. */}}
{{- define "tradewind.redisEnv" -}}
{{- $root := .root -}}
{{- if $root.Values.redis.enabled }}
{{- $name := ternary $root.Release.Name (printf "%s-redis" $root.Release.Name) (contains "redis" $root.Release.Name) }}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $name }}
      key: redis-password
- name: REDIS_URL
  value: {{ printf "redis://:$(REDIS_PASSWORD)@%s-master.%s.svc:6379" $name $root.Release.Namespace | quote }}
{{- else }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ required "secrets.redis is required when redis.enabled=false" $root.Values.secrets.redis }}
      key: url
{{- end }}
{{- end -}}

{{/* auth's JWKS and gRPC address, for services that verify access tokens or call auth. */}}
{{- define "tradewind.authPeerEnv" -}}
{{- $auth := dict "root" .root "name" "auth" -}}
{{- $port := .root.Values.components.auth.ports -}}
- name: AUTH_JWKS_URL
  value: {{ printf "http://%s:%v/auth/.well-known/jwks.json" (include "tradewind.serviceHost" $auth) $port.http | quote }}
{{- end -}}

{{/* An optional key of an optional Secret as an environment variable. Args: name (env), secret, key. */}}
{{- define "tradewind.optionalSecretEnv" -}}
{{- if .secret }}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ .key }}
      optional: true
{{- end }}
{{- end -}}

{{/*
The NATS identities Secret, projected down to the keys a service needs (least privilege: only
credential-issuer sees identities.json with the operator and account seeds). Args: root, keys (list).
Mode 0440 (288): readable by the pod's fsGroup, as the containers run as a non-root user.
*/}}
{{- define "tradewind.identitiesVolume" -}}
- name: nats-identities
  secret:
    secretName: {{ .root.Values.secrets.natsIdentities }}
    defaultMode: 288
    items:
      {{- range .keys }}
      - key: {{ . }}
        path: {{ . }}
      {{- end }}
{{- end -}}

{{- define "tradewind.identitiesMount" -}}
- name: nats-identities
  mountPath: /var/run/tradewind/nats
  readOnly: true
{{- end -}}

{{- define "tradewind.serviceAccount" -}}
{{- if .v.serviceAccount.create }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "tradewind.componentFullname" . }}
  labels:
    {{- include "tradewind.labels" . | nindent 4 }}
  {{- with .v.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
automountServiceAccountToken: false
{{- end }}
{{- end -}}

{{/*
The Deployment. Extra args in the context: env (YAML list text), volumes and volumeMounts (YAML list
text, optional), ports (list of dict name/port), sidecars (YAML list text, optional).
*/}}
{{- define "tradewind.deployment" -}}
{{- $v := .v -}}
{{- if and (not $v.securityContext.readOnlyRootFilesystem) (not .root.Values.development.enabled) }}
{{- fail (printf "%s: securityContext.readOnlyRootFilesystem=false is only allowed with development.enabled (Tilt live update)" .name) }}
{{- end }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "tradewind.componentFullname" . }}
  labels:
    {{- include "tradewind.labels" . | nindent 4 }}
spec:
  {{- if not (and (hasKey $v "autoscaling") $v.autoscaling.enabled) }}
  replicas: {{ $v.replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  {{- /* One new pod at a time, and an old one stops only once its replacement is Ready: serving
         capacity never drops, and ws-fanout's clients reconnect one pod's worth at a time. */}}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 0
  selector:
    matchLabels:
      {{- include "tradewind.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "tradewind.labels" . | nindent 8 }}
        {{- with $v.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ $v.ports.admin | quote }}
        prometheus.io/path: /metrics
        {{- with $v.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ ternary (include "tradewind.componentFullname" .) "default" $v.serviceAccount.create }}
      automountServiceAccountToken: false
      terminationGracePeriodSeconds: {{ include "tradewind.gracePeriod" . }}
      {{- with $v.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml $v.podSecurityContext | nindent 8 }}
      containers:
        - name: {{ .name }}
          image: {{ include "tradewind.image" . | quote }}
          imagePullPolicy: {{ $v.image.pullPolicy }}
          securityContext:
            {{- toYaml $v.securityContext | nindent 12 }}
          ports:
            {{- range $name, $port := $v.ports }}
            - name: {{ $name }}
              containerPort: {{ $port }}
              protocol: TCP
            {{- end }}
          env:
            {{- include "tradewind.commonEnv" . | nindent 12 }}
            {{- with .env }}
            {{- . | nindent 12 }}
            {{- end }}
          startupProbe:
            httpGet:
              path: /healthz
              port: admin
            periodSeconds: {{ $v.probes.startup.periodSeconds }}
            failureThreshold: {{ $v.probes.startup.failureThreshold }}
          livenessProbe:
            httpGet:
              path: /healthz
              port: admin
            periodSeconds: {{ $v.probes.liveness.periodSeconds }}
            timeoutSeconds: {{ $v.probes.liveness.timeoutSeconds }}
            failureThreshold: {{ $v.probes.liveness.failureThreshold }}
          readinessProbe:
            httpGet:
              path: /readyz
              port: admin
            periodSeconds: {{ $v.probes.readiness.periodSeconds }}
            timeoutSeconds: {{ $v.probes.readiness.timeoutSeconds }}
            failureThreshold: {{ $v.probes.readiness.failureThreshold }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- with .volumeMounts }}
            {{- . | nindent 12 }}
            {{- end }}
        {{- with .sidecars }}
        {{- . | nindent 8 }}
        {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: {{ $v.tmpSizeLimit }}
        {{- with .volumes }}
        {{- . | nindent 8 }}
        {{- end }}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end -}}

{{/* The Service: every named port except admin (scraped on the pod), plus admin for in-cluster checks. */}}
{{- define "tradewind.service" -}}
{{- $svc := default dict .v.service -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "tradewind.componentFullname" . }}
  labels:
    {{- include "tradewind.labels" . | nindent 4 }}
  {{- with $svc.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ default "ClusterIP" $svc.type }}
  selector:
    {{- include "tradewind.selectorLabels" . | nindent 4 }}
  ports:
    {{- range $name, $port := .v.ports }}
    - name: {{ $name }}
      port: {{ $port }}
      targetPort: {{ $name }}
      protocol: TCP
      {{- if eq $name "grpc" }}
      appProtocol: grpc
      {{- end }}
    {{- end }}
{{- end -}}

{{- define "tradewind.pdb" -}}
{{- if .v.podDisruptionBudget.enabled }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "tradewind.componentFullname" . }}
  labels:
    {{- include "tradewind.labels" . | nindent 4 }}
spec:
  maxUnavailable: {{ .v.podDisruptionBudget.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "tradewind.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end -}}

{{/* ServiceAccount, Deployment, Service and PodDisruptionBudget of one component, as YAML documents. */}}
{{- define "tradewind.component" -}}
{{- $docs := list (include "tradewind.serviceAccount" .) (include "tradewind.deployment" .) (include "tradewind.service" .) (include "tradewind.pdb" .) -}}
{{- $out := list -}}
{{- range $docs }}{{ if trim . }}{{ $out = append $out (trim .) }}{{ end }}{{ end -}}
{{- join "\n---\n" $out -}}
{{- end -}}

{{- /* The WebSocket URL subscribers get: wsPublicUrl, else derived from natsPublicUrl as credential-issuer
       derives it (wsUrlFromNatsUrl: nats→ws, tls→wss, port 4223 or none → 9223; docs/architecture.md §4). */ -}}
{{- define "tradewind.wsPublicUrl" -}}
{{- if .Values.wsPublicUrl -}}
{{- .Values.wsPublicUrl -}}
{{- else -}}
{{- $u := urlParse .Values.natsPublicUrl -}}
{{- $hostname := regexReplaceAll ":[0-9]+$" $u.host "" -}}
{{- $port := trimPrefix ":" (regexFind ":[0-9]+$" $u.host) -}}
{{- printf "%s://%s:%s" (ternary "wss" "ws" (eq $u.scheme "tls")) $hostname (ternary "9223" $port (or (eq $port "") (eq $port "4223"))) -}}
{{- end -}}
{{- end -}}
