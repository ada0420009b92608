type Json = Record<string, unknown>;

/**
 * A Web API call's arguments, as Slack's clients send them: a JSON body, or a form whose
 * JSON-looking values (blocks, metadata, views) are JSON. A value that only looks like JSON stays text.
 */
export function parseWebApiArgs(body: string, contentType: string | undefined): Json {
  if (contentType?.includes('application/json')) return body ? (JSON.parse(body) as Json) : {};
  const args: Json = {};
  for (const [key, value] of new URLSearchParams(body)) {
    try {
      args[key] = /^[[{]/.test(value) ? JSON.parse(value) : value;
    } catch {
      args[key] = value;
    }
  }
  return args;
}
