import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const LISTENERS = new URL('../../src/slack/listeners/', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, LISTENERS), 'utf8');
const folders = readdirSync(LISTENERS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('the listener folders', () => {
  it('are each registered by the listeners index', () => {
    const index = read('index.ts');
    for (const folder of folders) expect(index, folder).toContain(`from './${folder}/index.js'`);
  });

  it.each(folders)('%s/index.ts registers every listener its folder exports', (folder) => {
    const index = read(`${folder}/index.ts`);
    const registers = readdirSync(new URL(`${folder}/`, LISTENERS))
      .filter((file) => file.endsWith('.ts') && file !== 'index.ts')
      .flatMap((file) => [...read(`${folder}/${file}`).matchAll(/export function (register\w+)\(/g)].map((m) => m[1]));
    for (const name of registers)
      expect(index, `${folder}/index.ts calls ${name}`).toMatch(new RegExp(`\\b${name}\\(`));
  });
});
