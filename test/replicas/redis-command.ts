import { connect } from 'node:net';

export type RespValue = string | number | null | RespValue[];

/** Parses one RESP reply from `text` (latin1: a character a byte) at `at`; undefined while incomplete. */
function parse(text: string, at: number): { value: RespValue; end: number } | undefined {
  const lineEnd = text.indexOf('\r\n', at);
  if (lineEnd < 0) return undefined;
  const head = text.slice(at + 1, lineEnd);
  const next = lineEnd + 2;
  switch (text[at]) {
    case '+':
      return { value: head, end: next };
    case '-':
      throw new Error(`Redis answered ${head}`);
    case ':':
      return { value: Number(head), end: next };
    case '$': {
      const length = Number(head);
      if (length < 0) return { value: null, end: next };
      if (text.length < next + length + 2) return undefined;
      return { value: text.slice(next, next + length), end: next + length + 2 };
    }
    case '*': {
      const count = Number(head);
      if (count < 0) return { value: null, end: next };
      const items: RespValue[] = [];
      let position = next;
      for (let i = 0; i < count; i += 1) {
        const item = parse(text, position);
        if (!item) return undefined;
        items.push(item.value);
        position = item.end;
      }
      return { value: items, end: position };
    }
    default:
      throw new Error(`Unexpected RESP type ${text[at]}`);
  }
}

/**
 * One command on its own connection, for tests and the benchmark that need what the bot's
 * libraries hide (INFO, FLUSHDB): a few lines of RESP instead of another client library.
 */
export function redisCommand(url: string, ...args: (string | number)[]): Promise<RespValue> {
  const { hostname, port, pathname } = new URL(url);
  const db = pathname.length > 1 ? pathname.slice(1) : undefined;
  const encode = (parts: (string | number)[]) =>
    `*${parts.length}\r\n${parts.map((part) => `$${Buffer.byteLength(String(part))}\r\n${part}\r\n`).join('')}`;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let buffered = '';
    let skip = db === undefined ? 0 : 1;
    socket.setEncoding('latin1');
    socket.once('connect', () => socket.write((db === undefined ? '' : encode(['SELECT', db])) + encode(args)));
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      try {
        let at = 0;
        for (;;) {
          const reply = parse(buffered, at);
          if (!reply) break;
          at = reply.end;
          if (skip > 0) {
            skip -= 1;
            continue;
          }
          socket.end();
          resolve(reply.value);
          return;
        }
        buffered = buffered.slice(at);
      } catch (error) {
        socket.destroy();
        reject(error);
      }
    });
    socket.once('error', reject);
  });
}

/** Commands Redis has processed since it started (`INFO stats` total_commands_processed). */
export async function commandsProcessed(url: string): Promise<number> {
  const info = String(await redisCommand(url, 'INFO', 'stats'));
  const match = /total_commands_processed:(\d+)/.exec(info);
  if (!match) throw new Error('INFO stats has no total_commands_processed');
  return Number(match[1]);
}
