import type { App, Plugin, Verifier } from '../../../core/types.js';
import { registerRoutes } from './routes.js';
import { inlineMilestones, INLINE_CHARS, processVerifier, type MilestoneRunner } from './verifier.js';
import { ENGINE_NAME, ENGINE_VERSION, type MilestoneResult } from './engine.js';

export { checkIrac, checkMilestones, normalise } from './engine.js';
export { LIMITS } from './verifier.js';

/**
 * POST /verify/process: reasoning-trace structure (IRAC markers or milestone phrases). IRAC markers
 * are a few anchored scans of the raw trace and run on the request thread; milestone matching
 * normalises the whole trace (NFKC can grow it 18-fold) and runs in the worker pool unless the
 * input is short. See docs/engines/process.md.
 */
const processPlugin: Plugin = {
  name: 'process',
  provides: ['verifier.process'],
  /** its name before 0.x: still accepted in plugins.disabled, with a warning */
  aliases: ['engine-process'],
  register(app: App) {
    const engine = app.engine({ name: ENGINE_NAME, version: ENGINE_VERSION, module: new URL('./engine.js', import.meta.url) });
    const runMilestones: MilestoneRunner = (trace, milestones, signal) =>
      trace.length + milestones.reduce((n, m) => n + m.length, 0) <= INLINE_CHARS
        ? inlineMilestones(trace, milestones)
        : engine.run<MilestoneResult>('milestonesTask', { trace, milestones }, { signal });
    registerRoutes(app, runMilestones);
    app.provide('verifier.process', processVerifier(runMilestones));
  },
};

export default processPlugin;
