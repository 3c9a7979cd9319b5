import { pino, type Logger, type DestinationStream } from 'pino';
import type { Config } from '../config.js';

const LEVELS: Record<Config['log_level'], string> = {
  DEBUG: 'debug',
  INFO: 'info',
  WARNING: 'warn',
  ERROR: 'error',
  SILENT: 'silent',
};

/** Structured JSON logs on stdout; secrets that may reach a log line are redacted by path. */
export function createLogger(level: Config['log_level'], destination?: DestinationStream): Logger {
  return pino(
    {
      level: LEVELS[level] ?? 'info',
      base: { service: 'proofgate' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers["x-agent-token"]', '*.password', '*.key', '*.token'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

export type { Logger };
