import { readFileSync } from 'node:fs';

/**
 * The node flags the image starts the bot with: what the Dockerfile's last `CMD ["node", ...,
 * "dist/main.js"]` puts between `node` and the script, so the benches run the bot as the image does.
 */
export function imageNodeFlags(): string[] {
  const dockerfile = readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8');
  const cmd = dockerfile
    .match(/^CMD (\[.*\])\s*$/gm)
    ?.at(-1)
    ?.slice('CMD '.length);
  const args = cmd ? (JSON.parse(cmd) as string[]) : [];
  const script = args.indexOf('dist/main.js');
  if (args[0] !== 'node' || script < 0) throw new Error(`The Dockerfile's CMD does not run node dist/main.js: ${cmd}`);
  return args.slice(1, script);
}
