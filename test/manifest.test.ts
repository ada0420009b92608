import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { z } from 'zod';
import { runCli } from '../src/cli.js';
import { appManifest } from '../src/slack/app/app-manifest.js';

const TEMPLATE = readFileSync(new URL('../manifest.yml', import.meta.url), 'utf8');

/**
 * The fields of Slack's app manifest this app uses, with the shapes and limits Slack's manifest
 * reference gives them (https://docs.slack.dev/reference/app-manifest). Strict: a misspelt key fails.
 */
const callbackId = z.string().regex(/^[a-z0-9_]{1,255}$/);
/** A step's parameter in the flat form of Bolt's custom-step template: its key repeated as `name`. */
const parameter = z
  .object({
    type: z.string().min(1),
    title: z.string().min(1).max(255),
    description: z.string().max(1000).optional(),
    hint: z.string().max(1000).optional(),
    is_required: z.boolean(),
    name: z.string(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
  })
  .strict();
const parameters = z
  .record(z.string().regex(/^[a-z0-9_]+$/), parameter)
  .refine((each) => Object.entries(each).every(([key, p]) => p.name === key), 'each parameter names its own key');
const manifestSchema = z
  .object({
    _metadata: z.object({ major_version: z.literal(1), minor_version: z.number().int() }).strict(),
    display_information: z
      .object({
        name: z.string().min(1).max(35),
        description: z.string().max(140).optional(),
        background_color: z
          .string()
          .regex(/^#[0-9a-fA-F]{6}$/)
          .optional(),
        long_description: z.string().min(175).max(4000).optional(),
      })
      .strict(),
    features: z
      .object({
        app_home: z
          .object({
            home_tab_enabled: z.boolean(),
            messages_tab_enabled: z.boolean(),
            messages_tab_read_only_enabled: z.boolean(),
          })
          .strict(),
        bot_user: z.object({ display_name: z.string().min(1).max(80), always_online: z.boolean() }).strict(),
        slash_commands: z.array(
          z
            .object({
              command: z.string().regex(/^\/[a-z0-9_-]{1,31}$/),
              url: z.string().url().optional(),
              description: z.string().min(1).max(2000),
              usage_hint: z.string().max(1000).optional(),
              should_escape: z.boolean().optional(),
            })
            .strict(),
        ),
        shortcuts: z.array(
          z
            .object({
              name: z.string().min(1).max(24),
              type: z.enum(['global', 'message']),
              callback_id: callbackId,
              description: z.string().min(1).max(150),
            })
            .strict(),
        ),
        unfurl_domains: z
          .array(z.string().regex(/^[a-z0-9.-]+$/))
          .max(5)
          .optional(),
      })
      .strict(),
    oauth_config: z
      .object({ scopes: z.object({ bot: z.array(z.string().regex(/^[a-z]+(:[a-z.]+)?$/)) }).strict() })
      .strict(),
    settings: z
      .object({
        event_subscriptions: z.object({ request_url: z.string().url(), bot_events: z.array(z.string()) }).strict(),
        interactivity: z
          .object({
            is_enabled: z.boolean(),
            request_url: z.string().url(),
            message_menu_options_url: z.string().url().optional(),
          })
          .strict(),
        org_deploy_enabled: z.boolean(),
        socket_mode_enabled: z.boolean(),
        token_rotation_enabled: z.boolean(),
        function_runtime: z.literal('remote').optional(),
      })
      .strict(),
    functions: z
      .record(
        callbackId,
        z
          .object({
            title: z.string().min(1).max(255),
            description: z.string().max(1000),
            input_parameters: parameters,
            output_parameters: parameters,
          })
          .strict(),
      )
      .optional(),
  })
  .strict();

describe('manifest.yml', () => {
  it('has the shape of a Slack app manifest in every field it uses', () => {
    const parsed = manifestSchema.safeParse(parse(TEMPLATE));
    expect(parsed.success ? 'valid' : z.prettifyError(parsed.error)).toBe('valid');
  });

  it('declares every shortcut callback the bot listens to', () => {
    const manifest = parse(TEMPLATE) as { features: { shortcuts: { callback_id: string; type: string }[] } };
    const shortcuts = manifest.features.shortcuts.map((s) => `${s.type}:${s.callback_id}`);
    expect(shortcuts).toEqual(
      expect.arrayContaining(['global:change_promo_quantity', 'message:show_event_from_message']),
    );
  });

  it('asks for the scopes that tell who is in a conversation (figures stay inside the organization)', () => {
    const manifest = parse(TEMPLATE) as z.infer<typeof manifestSchema>;
    expect(manifest.oauth_config.scopes.bot).toEqual(
      expect.arrayContaining(['channels:read', 'groups:read', 'im:read', 'mpim:read', 'users:read']),
    );
  });

  it('reads the history of every kind of conversation a digest or watch posts in, a group DM too (its posts found after a crash)', () => {
    const manifest = parse(TEMPLATE) as z.infer<typeof manifestSchema>;
    expect(manifest.oauth_config.scopes.bot).toEqual(
      expect.arrayContaining(['channels:history', 'groups:history', 'im:history', 'mpim:history']),
    );
  });

  it('subscribes to function_executed, the event every run of a declared step arrives as', () => {
    const manifest = parse(TEMPLATE) as z.infer<typeof manifestSchema>;
    expect(Object.keys(manifest.functions ?? {})).not.toHaveLength(0);
    expect(manifest.settings.event_subscriptions.bot_events).toContain('function_executed');
  });

  it('gains function_executed wherever steps are declared, once; nothing of it without steps', () => {
    const withoutEvent = TEMPLATE.replace(/^ {6}- function_executed\n/m, '');
    expect(withoutEvent).not.toContain('- function_executed');
    const events = (text: string) =>
      (parse(text) as z.infer<typeof manifestSchema>).settings.event_subscriptions.bot_events;
    const added = appManifest(appManifest(withoutEvent, {}), {});
    expect(events(added).filter((event) => event === 'function_executed')).toHaveLength(1);
    const noSteps = parse(withoutEvent) as Record<string, unknown>;
    delete noSteps.functions;
    expect(events(appManifest(stringify(noSteps), {}))).not.toContain('function_executed');
  });

  it('gains the unfurl domain, the links scopes and link_shared with EVENT_PAGE_URL, once, and still validates', () => {
    const once = appManifest(TEMPLATE, { unfurlHost: 'tickets.example.com' });
    const twice = appManifest(once, { unfurlHost: 'tickets.example.com' });
    const manifest = parse(twice) as z.infer<typeof manifestSchema>;
    expect(manifestSchema.safeParse(manifest).success).toBe(true);
    expect(manifest.features.unfurl_domains).toEqual(['tickets.example.com']);
    expect(manifest.oauth_config.scopes.bot.filter((s) => s.startsWith('links:'))).toEqual([
      'links:read',
      'links:write',
    ]);
    expect(manifest.settings.event_subscriptions.bot_events.filter((e) => e === 'link_shared')).toHaveLength(1);
    // Without it, nothing of unfurls is asked for.
    const plain = parse(appManifest(TEMPLATE, {})) as z.infer<typeof manifestSchema>;
    expect(plain.features.unfurl_domains).toBeUndefined();
    expect(plain.oauth_config.scopes.bot).not.toContain('links:write');
    // Comments survive, so the generated manifest still explains itself.
    expect(once).toContain('# /events (the slash command itself)');
  });

  it('gains entity_details_requested for Work Objects, once, and still validates; nothing of it without them', () => {
    const options = { unfurlHost: 'tickets.example.com', workObjects: true };
    const manifest = parse(appManifest(appManifest(TEMPLATE, options), options)) as z.infer<typeof manifestSchema>;
    const parsed = manifestSchema.safeParse(manifest);
    expect(parsed.success ? 'valid' : z.prettifyError(parsed.error)).toBe('valid');
    const events = manifest.settings.event_subscriptions.bot_events;
    expect(events.filter((e) => e === 'entity_details_requested')).toHaveLength(1);
    expect(events).toContain('link_shared');
    // Slack's published schema: at most 100 events, each at most 50 characters, no repeats.
    expect(events.length).toBeLessThanOrEqual(100);
    expect(new Set(events).size).toBe(events.length);
    expect(events.every((e) => e.length <= 50)).toBe(true);
    const classic = parse(appManifest(TEMPLATE, { unfurlHost: 'tickets.example.com' })) as z.infer<
      typeof manifestSchema
    >;
    expect(classic.settings.event_subscriptions.bot_events).not.toContain('entity_details_requested');
    // No event page, no unfurls: no flexpanes either.
    const plain = parse(appManifest(TEMPLATE, { workObjects: true })) as z.infer<typeof manifestSchema>;
    expect(plain.settings.event_subscriptions.bot_events).not.toContain('entity_details_requested');
  });
});

/**
 * Slack's published manifest schema (slackapi/manifest-schema), kept outside the repository as
 * data: SLACK_MANIFEST_SCHEMA_DIR, else the nearest `shared/slack-manifest-schema` beside the
 * repository or above it. Nothing of it is committed; without it these tests say they skipped.
 */
function manifestSchemaDir(): string | undefined {
  const given = process.env.SLACK_MANIFEST_SCHEMA_DIR;
  if (given) return existsSync(join(given, 'manifest.schema.json')) ? given : undefined;
  let dir = dirname(fileURLToPath(new URL('../package.json', import.meta.url)));
  for (;;) {
    const candidate = join(dirname(dir), 'shared', 'slack-manifest-schema');
    if (existsSync(join(candidate, 'manifest.schema.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
    dir = dirname(dir);
  }
}

const SCHEMA_DIR = manifestSchemaDir();
/** Where manifest.schema.json finds each version (its `$ref`s), served from the local copies. */
const SCHEMA_BASE = 'https://raw.githubusercontent.com/slackapi/manifest-schema/v0.5.0/schemas/';

function slackManifestValidator(dir: string) {
  const read = (path: string) => JSON.parse(readFileSync(join(dir, path), 'utf8')) as Record<string, unknown>;
  const ajv = new Ajv({ allErrors: true, strict: false });
  // A CommonJS module: its function is also its `default`, which is what NodeNext types see.
  addFormats.default(ajv);
  for (const version of ['1.0.0', '2.0.0'])
    ajv.addSchema(read(`schemas/manifest.schema.${version}.json`), `${SCHEMA_BASE}manifest.schema.${version}.json`);
  const all = ajv.compile(read('manifest.schema.json'));
  const v1 = ajv.getSchema(`${SCHEMA_BASE}manifest.schema.1.0.0.json`);
  if (!v1) throw new Error('the v1 schema did not load');
  /** Every error, as `path message`: none when the manifest is valid both ways. */
  return (text: string): string[] => {
    const manifest = parse(text) as unknown;
    const errors = [...(v1(manifest) ? [] : (v1.errors ?? [])), ...(all(manifest) ? [] : (all.errors ?? []))];
    return errors.map((error) => `${error.instancePath} ${error.message}`);
  };
}

describe("Slack's published manifest schema", () => {
  it.skipIf(!SCHEMA_DIR)(
    `takes manifest.yml and every manifest eventops manifest prints, steps included${SCHEMA_DIR ? '' : ' (SKIPPED: no shared/slack-manifest-schema beside or above the repository, nor SLACK_MANIFEST_SCHEMA_DIR)'}`,
    async () => {
      const errorsOf = slackManifestValidator(SCHEMA_DIR as string);
      // The check can fail: the Deno SDK's {properties, required} form is what Slack refuses.
      const deno = parse(TEMPLATE) as { functions: Record<string, { input_parameters: unknown }> };
      for (const step of Object.values(deno.functions))
        step.input_parameters = { properties: step.input_parameters, required: [] };
      expect(errorsOf(stringify(deno))).not.toHaveLength(0);

      expect(errorsOf(TEMPLATE)).toEqual([]);
      const printed = async (env: Record<string, string>) => {
        const out: string[] = [];
        const err: string[] = [];
        const path = fileURLToPath(new URL('../manifest.yml', import.meta.url));
        const code = await runCli(['manifest', path], env, { out: (t) => out.push(t), err: (t) => err.push(t) });
        expect({ code, err: err.join('\n') }).toEqual({ code: 0, err: '' });
        return out.join('\n');
      };
      const plain = await printed({});
      const workObjects = await printed({ EVENT_PAGE_URL: 'https://tickets.example.com/events/{id}' });
      const classic = await printed({
        EVENT_PAGE_URL: 'https://tickets.example.com/events/{id}',
        UNFURL_STYLE: 'classic',
      });
      for (const manifest of [plain, workObjects, classic]) {
        expect(errorsOf(manifest)).toEqual([]);
        expect(Object.keys((parse(manifest) as { functions: object }).functions)).toHaveLength(3);
        expect(manifest).toContain('- function_executed');
      }
      expect(workObjects).toContain('- entity_details_requested');
    },
  );
});
