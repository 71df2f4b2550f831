// The bodies a webhook gets: a generic JSON object (the event as it is), Slack's incoming-webhook
// body ({text}, mrkdwn) and the Microsoft Teams body that Teams' Workflows webhooks (and the older
// Office 365 connectors' successors) accept: a message with one Adaptive Card.

import type { RolloutEvent } from './rollout-events.ts';
import type { WebhookFormat } from './webhook-config.ts';

const TITLES: Record<RolloutEvent['kind'], string> = {
  RolloutStarted: 'Rollout started',
  BatchDone: 'Batch done',
  Paused: 'Rollout paused',
  RolloutFailed: 'Rollout failed',
  RolledBack: 'Rolled back',
  RolloutComplete: 'Rollout complete',
  DrainBlocked: 'Drain blocked',
  Reboot: 'Node rebooting',
};

const WARNINGS = new Set<RolloutEvent['kind']>(['Paused', 'RolloutFailed', 'RolledBack', 'DrainBlocked']);

export function title(event: RolloutEvent): string {
  return `${TITLES[event.kind]}: NodeConfigPool ${event.pool}`;
}

export function webhookBody(format: WebhookFormat, event: RolloutEvent): unknown {
  switch (format) {
    case 'json':
      return { source: 'nodeherd', ...event };
    case 'slack':
      return {
        text: `${WARNINGS.has(event.kind) ? ':warning: ' : ''}*${title(event)}*\n${event.message}`,
      };
    case 'teams':
      return {
        type: 'message',
        attachments: [
          {
            contentType: 'application/vnd.microsoft.card.adaptive',
            content: {
              $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
              type: 'AdaptiveCard',
              version: '1.4',
              body: [
                {
                  type: 'TextBlock',
                  text: title(event),
                  weight: 'Bolder',
                  size: 'Medium',
                  ...(WARNINGS.has(event.kind) ? { color: 'Warning' } : {}),
                },
                { type: 'TextBlock', text: event.message, wrap: true },
                {
                  type: 'FactSet',
                  facts: [
                    { title: 'Pool', value: event.pool },
                    ...(event.revision ? [{ title: 'Revision', value: event.revision }] : []),
                    ...(event.nodes?.length ? [{ title: 'Nodes', value: event.nodes.join(', ') }] : []),
                    { title: 'Time', value: event.time },
                  ],
                },
              ],
            },
          },
        ],
      };
  }
}
