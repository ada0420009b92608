import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { appManifest } from '../src/slack/app/app-manifest.js';

const TEMPLATE = readFileSync(new URL('../manifest.yml', import.meta.url), 'utf8');

/**
 * The fields of Slack's app manifest this app uses, with the shapes and limits Slack's manifest
 * reference gives them (https://docs.slack.dev/reference/app-manifest). Strict: a misspelt key fails.
 */
const callbackId = z.string().regex(/^[a-z0-9_]{1,255}$/);
const parameter = z
  .object({
    type: z.string().min(1),
    title: z.string().min(1).max(255),
    description: z.string().max(1000).optional(),
    hint: z.string().max(1000).optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
  })
  .strict();
const parameters = z
  .object({
    properties: z.record(z.string().regex(/^[a-z0-9_]+$/), parameter),
    required: z.array(z.string()).optional(),
  })
  .strict();
const manifestSchema = z
  .object({
    display_information: z
      .object({
        name: z.string().min(1).max(35),
        description: z.string().max(140).optional(),
        background_color: z
          .string()
          .regex(/^#[0-9a-fA-F]{6}$/)
          .optional(),
        long_description: z.string().min(174).max(4000).optional(),
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
