import { defineSettings } from '../../../core/plugin/settings.js';

/** `plugin_config.code` (config file only; docs/engines/code.md, "Python fast path") */
export interface CodeSettings {
  /** false: every Python input is parsed by tree-sitter */
  python_fast_parser?: boolean;
}

export const codeSettings = defineSettings<CodeSettings>('plugin_config.code', {
  type: 'object',
  additionalProperties: false,
  properties: {
    python_fast_parser: { type: 'boolean', description: 'false: every Python input is parsed by tree-sitter, not by the fast parser (default true).' },
  },
});
