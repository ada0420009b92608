import { describe, expect, it } from 'vitest';
import { type ConversationSharing, watchFiguresMayGo } from '../../src/watches/figures-may-go.js';

const channelWatch = { channel: 'C0SHARED', personal: false, sharedConfirmed: undefined };
const sharing = (answer: ConversationSharing) => async () => answer;

describe('whether a watch’s figures may go to its conversation', () => {
  it('goes by what Slack says of a channel watch nobody confirmed there', async () => {
    expect(await watchFiguresMayGo(channelWatch, sharing('internal'))).toBe('yes');
    expect(await watchFiguresMayGo(channelWatch, sharing('external'))).toBe('no');
    expect(await watchFiguresMayGo(channelWatch, sharing('unknown'))).toBe('unknown');
    const heard: unknown[] = [];
    expect(
      await watchFiguresMayGo(
        channelWatch,
        async () => {
          throw new Error('Slack is down');
        },
        (error) => heard.push(error),
      ),
    ).toBe('unknown');
    expect(heard).toEqual([new Error('Slack is down')]);
  });

  it('always lets a person’s own watch, and a channel watch confirmed there, show its figures', async () => {
    const asked: string[] = [];
    const external = async (conversation: string) => {
      asked.push(conversation);
      return 'external' as const;
    };
    expect(await watchFiguresMayGo({ ...channelWatch, personal: true, channel: 'U0ALICE' }, external)).toBe('yes');
    expect(await watchFiguresMayGo({ ...channelWatch, sharedConfirmed: true }, external)).toBe('yes');
    expect(asked).toEqual([]);
  });
});
