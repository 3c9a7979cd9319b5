import { existsSync } from 'node:fs';
import { ConfigError, DEFAULT_CONFIG_PATH } from '../../core/config.js';
import { loadServiceConfig } from '../config.js';
import { createLogger } from '../../core/obs/log.js';
import { isLmdbCommitEcho } from '../../core/store/lmdb-health.js';
import { listenEarly } from '../bootstrap.js';
import { defineCommand, type Command } from '../../core/cli.js';
import { writeDevConfig } from './init.js';

export const startCommand: Command = defineCommand({
  name: 'start',
  summary: 'serve the sidecar (runs init first when no config exists)',
  usage: `proofgate start [--config PATH]

Loads the config file (--config, else $SVC_CONFIG, else ${DEFAULT_CONFIG_PATH}), applies SVC_* environment
variables over it, validates everything, and serves on server.host:server.port (default 127.0.0.1:8080).
When no config file exists at the default path and none was named, runs \`proofgate init\` first.
SIGTERM/SIGINT: stop accepting, finish in-flight requests, close the store; a second signal exits at once.`,
  options: { config: { type: 'string' } },
  async run({ values }) {
    let file = values.config ?? process.env.SVC_CONFIG ?? null;
    if (!file) {
      file = DEFAULT_CONFIG_PATH;
      if (!existsSync(file)) {
        writeDevConfig(file);
        console.error(`proofgate: no config found; wrote a development config to ${file}`);
      }
    }
    let config;
    try {
      config = loadServiceConfig({ file });
    } catch (err) {
      if (err instanceof ConfigError) {
        console.error(`proofgate: cannot start: ${err.message}`);
        return 78;
      }
      throw err;
    }
    const log = createLogger(config.log_level);
    // A stray rejected promise is a bug to log, not a reason to drop every in-flight verification.
    // lmdb-js's own unawaited promise of a failed commit is not one: the store reported the
    // failure to its caller and logs a full disk once per episode (core/store/lmdb-health.ts)
    process.on('unhandledRejection', (err) => {
      if (isLmdbCommitEcho(err)) log.debug({ err }, 'lmdb commit failure, already reported to its caller');
      else log.error({ err }, 'unhandled promise rejection');
    });
    if (config.error_tracking_dsn) log.warn('ERROR_TRACKING_DSN is set but no error-tracking client is bundled; ignoring it');
    // live first: the socket answers /healthz while the kernel and plugins load (performance.md)
    let early;
    try {
      early = await listenEarly(config);
    } catch (err) {
      console.error(`proofgate: cannot listen on ${config.server.host}:${config.server.port}: ${(err as Error).message}`);
      return 1;
    }
    let kernel;
    try {
      const { createApp } = await import('../../core/app.js');
      const { builtinPlugins } = await import('../builtin.js');
      kernel = await createApp({ config, plugins: builtinPlugins, logger: log, server: early });
    } catch (err) {
      early.close();
      console.error(`proofgate: cannot start: ${(err as Error).message}`);
      return 78;
    }
    const { url } = await kernel.listen();
    console.error(`proofgate: serving on ${url}`);
    return await new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) process.exit(130);
        stopping = true;
        log.info({ signal }, 'shutting down');
        kernel.close().then(
          () => resolve(0),
          (err) => {
            log.error({ err }, 'shutdown failed');
            resolve(1);
          },
        );
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
    });
  },
});
