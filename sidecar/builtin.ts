import type { Plugin } from '../core/types.js';
import health from '../plugins/health/index.js';
import auth from '../plugins/auth/index.js';
import agents from '../plugins/agents/index.js';
import audit from '../plugins/audit/index.js';
import ops from '../plugins/ops/index.js';
import batch from '../plugins/batch/index.js';
import providers from '../plugins/providers/index.js';
import naturalLanguageEngine from '../plugins/engines/natural-language/index.js';
import factEngine from '../plugins/engines/fact/index.js';
import sqlEngine from '../plugins/engines/sql/index.js';
import codeEngine from '../plugins/engines/code/index.js';
import logicEngine from '../plugins/engines/logic/index.js';
import mathEngine from '../plugins/engines/math/index.js';
import processEngine from '../plugins/engines/process/index.js';
import ragEngine from '../plugins/engines/rag/index.js';
import consensusEngine from '../plugins/engines/consensus/index.js';
import statsEngine from '../plugins/engines/stats/index.js';
import imageEngine from '../plugins/engines/image/index.js';
import attestation from '../plugins/attestation/index.js';
import verificationContext from '../plugins/verification-context/index.js';
import badges from '../plugins/badges/index.js';
import a2a from '../plugins/a2a/index.js';
import mcp from '../plugins/mcp/index.js';
import { createProvisioning } from './provision/plugin.js';

/** SVC_BOOTSTRAP_FILE: settings first (plans, trust entries), objects last (docs/ops.md) */
const provisioning = createProvisioning();

/**
 * The composition root: the one place that names the built-in plugins. Order matters only for
 * hooks (they run in registration order): authentication and limits register first, audit last.
 */
export const builtinPlugins: Plugin[] = [
  provisioning.config,
  health,
  auth,
  // after auth: agent tokens are digested by its key service
  agents,
  // the llm.translator service, before the engines that translate (logic, natural-language)
  providers,
  mathEngine,
  naturalLanguageEngine,
  factEngine,
  logicEngine,
  codeEngine,
  sqlEngine,
  processEngine,
  ragEngine,
  consensusEngine,
  statsEngine,
  imageEngine,
  batch,
  attestation,
  verificationContext,
  badges,
  a2a,
  // after agents (agent tokens) and a2a (the verdict signer)
  mcp,
  // audit after attestation: its onReply hook records the reply as sent, attestation included
  audit,
  ops,
  provisioning.data,
];
