import t from 'tap';
import { resolvePlugins } from '../../../core/plugin/load.js';
import type { Plugin } from '../../../core/types.js';

const plugin = (name: string, aliases?: string[]): Plugin => ({ name, aliases, register: () => undefined });

t.test('a renamed plugin is disabled by its former name, with a warning naming the new one', async (t) => {
  const builtins = [plugin('math', ['engine-math']), plugin('code')];
  const warnings: string[] = [];
  const list = await resolvePlugins(builtins, ['engine-math'], [], (m) => warnings.push(m));
  t.same(list.map((p) => p.name), ['code']);
  t.equal(warnings.length, 1);
  t.match(warnings[0], /"engine-math" is now called "math"/);
});

t.test('the current name needs no warning; an unknown name is still refused', async (t) => {
  const builtins = [plugin('math', ['engine-math']), plugin('code')];
  const warnings: string[] = [];
  t.same((await resolvePlugins(builtins, ['math'], [], (m) => warnings.push(m))).map((p) => p.name), ['code']);
  t.same(warnings, []);
  await t.rejects(resolvePlugins(builtins, ['engine-code'], []), /cannot disable unknown plugin\(s\): engine-code/);
});
