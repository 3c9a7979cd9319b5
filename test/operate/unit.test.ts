/**
 * Operating checks that need no server (test/operate/unit/), run in one test process: the
 * documented configuration and the Kubernetes manifests against the code. A process per file cost
 * the suite a Node start and the test runner's loaders each.
 */
import './unit/config.js';
import './unit/k8s.js';
import './unit/alerts.js';
import './unit/helm.js';
import './unit/k8s-schema.js';
