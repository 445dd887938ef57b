import { expect } from 'vitest';
import type { SlackBlock, SlackMessage } from '../../src/messages/slack.js';
import { SLACK_LIMITS } from '../../src/messages/slack-text.js';

/**
 * Every limit Slack puts on a message (api.slack.com/reference/block-kit/blocks), checked on a
 * rendered payload, with the block that breaks one named. Lengths in UTF-16 units, which are at
 * least Slack's characters.
 */
export function expectWithinSlackLimits(message: SlackMessage): void {
  expect(message.blocks.length, 'blocks').toBeLessThanOrEqual(SLACK_LIMITS.blocks);
  expect(message.text.length, 'fallback text').toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
  message.blocks.forEach((block: SlackBlock, index) => {
    const where = `block ${index} (${block.type})`;
    switch (block.type) {
      case 'header':
        expect(block.text.text.length, where).toBeLessThanOrEqual(SLACK_LIMITS.headerText);
        break;
      case 'section':
        expect(block.text !== undefined || (block.fields?.length ?? 0) > 0, `${where} is empty`).toBe(true);
        expect(block.text?.text.length ?? 0, where).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
        expect(block.fields?.length ?? 0, where).toBeLessThanOrEqual(SLACK_LIMITS.fields);
        for (const field of block.fields ?? []) {
          expect(field.text.length, where).toBeLessThanOrEqual(SLACK_LIMITS.fieldText);
        }
        break;
      case 'actions':
        expect(block.elements.length, where).toBeLessThanOrEqual(SLACK_LIMITS.actions);
        for (const button of block.elements) {
          expect(button.text.text.length, where).toBeLessThanOrEqual(SLACK_LIMITS.buttonText);
          expect(button.url.length, where).toBeLessThanOrEqual(3000);
        }
        expect(new Set(block.elements.map((button) => button.action_id)).size, `${where} action ids`).toBe(
          block.elements.length,
        );
        break;
      case 'context':
        expect(block.elements.length, where).toBeLessThanOrEqual(SLACK_LIMITS.contextElements);
        break;
      case 'divider':
        break;
    }
  });
}

/** Every piece of text a person reads in a message, for checks on words. */
export function textsOf(message: SlackMessage): string[] {
  return message.blocks.flatMap((block): string[] => {
    switch (block.type) {
      case 'header':
        return [block.text.text];
      case 'section':
        return [...(block.text ? [block.text.text] : []), ...(block.fields ?? []).map((field) => field.text)];
      case 'actions':
        return block.elements.map((button) => button.text.text);
      case 'context':
        return block.elements.map((element) => element.text);
      default:
        return [];
    }
  });
}
