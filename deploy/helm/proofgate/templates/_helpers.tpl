{{/* Names and labels. Kept to a small subset of the template language (test/helpers/helm-render.ts
renders it in the test suite where the helm binary is absent). */}}
{{- define "proofgate.fullname" -}}
{{ .Release.Name }}-proofgate
{{- end }}

{{- define "proofgate.selector" -}}
app.kubernetes.io/name: proofgate
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "proofgate.labels" -}}
{{ include "proofgate.selector" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The proofgate container: an initContainers entry (native sidecar) in sidecar mode, the only
container in shared mode. Secrets only as secretKeyRef. */}}
{{- define "proofgate.container" -}}
- name: proofgate
  image: "{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}"
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  {{- if eq .Values.mode "sidecar" }}
  # a native sidecar: started before the app, which waits for its startupProbe; stopped after the app
  restartPolicy: Always
  {{- end }}
  args: ["start"]
  ports:
    - name: http
      containerPort: 8080
    {{- if .Values.metrics.enabled }}
    - name: metrics
      containerPort: {{ .Values.metrics.port }}
    {{- end }}
  env:
    - name: SVC_MODE
      value: {{ if eq .Values.mode "sidecar" }}sidecar{{ else }}server{{ end }}
    - name: SVC_HOST
      value: 0.0.0.0
    - name: SVC_PORT
      value: "8080"
    - name: SVC_CONFIG
      value: /etc/proofgate/config.json
    - name: SVC_DATA_DIR
      value: /var/lib/proofgate
    {{- if .Values.metrics.enabled }}
    # the Prometheus listener on the pod IP only
    - name: SVC_METRICS_PORT
      value: {{ .Values.metrics.port | quote }}
    - name: SVC_METRICS_HOST
      valueFrom:
        fieldRef: { fieldPath: status.podIP }
    {{- if .Values.metrics.tokenKey }}
    - name: SVC_METRICS_TOKEN
      valueFrom:
        secretKeyRef: { name: {{ .Values.secrets.existingSecret | quote }}, key: {{ .Values.metrics.tokenKey | quote }} }
    {{- end }}
    {{- end }}
    {{- if eq .Values.mode "sidecar" }}
    - name: SVC_BOOTSTRAP_FILE
      value: /etc/proofgate-bootstrap/{{ .Values.bootstrap.key }}
    {{- range .Values.bootstrap.keyEnv }}
    - name: {{ . }}
      valueFrom:
        secretKeyRef: { name: {{ $.Values.secrets.existingSecret | quote }}, key: {{ . | quote }} }
    {{- end }}
    {{- else }}
    - name: SVC_PUBLIC_URL
      value: {{ .Values.shared.publicUrl | quote }}
    {{- range .Values.shared.secretEnv }}
    - name: {{ . }}
      valueFrom:
        secretKeyRef: { name: {{ $.Values.secrets.existingSecret | quote }}, key: {{ . | quote }} }
    {{- end }}
    {{- end }}
    {{- range .Values.secrets.env }}
    - name: {{ . }}
      valueFrom:
        secretKeyRef: { name: {{ $.Values.secrets.existingSecret | quote }}, key: {{ . | quote }} }
    {{- end }}
    {{- with .Values.env }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  # startup: /readyz (key loaded, store open, engines warm) gates what comes after it
  startupProbe:
    httpGet: { path: /readyz, port: http }
    periodSeconds: {{ .Values.probes.startup.periodSeconds }}
    timeoutSeconds: 2
    failureThreshold: {{ .Values.probes.startup.failureThreshold }}
  livenessProbe:
    httpGet: { path: /healthz, port: http }
    periodSeconds: {{ .Values.probes.liveness.periodSeconds }}
    timeoutSeconds: {{ .Values.probes.liveness.timeoutSeconds }}
    failureThreshold: {{ .Values.probes.liveness.failureThreshold }}
  readinessProbe:
    httpGet: { path: /readyz, port: http }
    periodSeconds: {{ .Values.probes.readiness.periodSeconds }}
    timeoutSeconds: {{ .Values.probes.readiness.timeoutSeconds }}
    failureThreshold: {{ .Values.probes.readiness.failureThreshold }}
  resources:
    {{- toYaml .Values.resources | nindent 4 }}
  securityContext:
    allowPrivilegeEscalation: false
    readOnlyRootFilesystem: true
    capabilities: { drop: ["ALL"] }
  volumeMounts:
    - name: config
      mountPath: /etc/proofgate
      readOnly: true
    {{- if eq .Values.mode "sidecar" }}
    - name: bootstrap
      mountPath: /etc/proofgate-bootstrap
      readOnly: true
    {{- end }}
    - name: data
      mountPath: /var/lib/proofgate
    - name: tmp
      mountPath: /tmp
{{- end }}
