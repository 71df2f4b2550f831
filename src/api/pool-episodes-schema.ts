// The episodes of a pool's nodes, recorded by the controller as they happen in the pool's status
// (issue 36): a node that failed (with the agent's excerpt of why), was rolled back, went NotReady,
// was drained or rebooted, or reached the target. Events expire (an hour on kube-apiserver); these stay,
// bounded in bytes (oldest finished ones dropped first), so a timeline rebuilt later still shows them.

import { array, dateTime, object, optional, string, stringEnum } from './schema-builder.ts';

export const EPISODE_KINDS = ['Updated', 'Failed', 'RolledBack', 'NotReady', 'Drain', 'Reboot'] as const;
export type EpisodeKind = (typeof EPISODE_KINDS)[number];

/** An episode's message (a failure's excerpt, a blocked drain's reason) is cut at this many UTF-8 bytes. */
export const MAX_EPISODE_MESSAGE_BYTES = 4096;
/**
 * All episodes of a pool, as JSON, stay within this many bytes: arrivals go first, then the oldest
 * finished episodes, failures last. Every status write carries the whole list (a merge patch replaces
 * arrays), so it is kept small: 32 KiB holds a rollout of about 300 nodes' arrivals, or 7 excerpts.
 */
export const MAX_EPISODES_BYTES = 32 * 1024;
/** And at most this many (the schema's maxItems). */
export const MAX_EPISODES = 1000;

export const poolEpisodeSchema = object(
  {
    node: string('The Node.', { maxLength: 253 }),
    kind: stringEnum(
      EPISODE_KINDS,
      'Updated: reached the target revision healthy (an instant); RolledBack: reached it in a rollback (an instant); Failed: its agent reported the revision failed; NotReady: its Ready condition was not True; Drain: the controller drained it; Reboot: the controller asked it to reboot and it had not answered.',
    ),
    revision: optional(string('The NodeConfigRevision concerned (name).', { maxLength: 253 })),
    from: dateTime('When it began (when the controller saw it, or the Node condition’s transition).'),
    to: optional(dateTime('When it ended; absent while it goes on.')),
    message: optional(
      string('Why: a failure’s reason and the agent’s excerpt (journal lines), a drain’s blocker.', {
        maxLength: MAX_EPISODE_MESSAGE_BYTES,
      }),
    ),
  },
  'One episode of one node.',
);

export const episodesDroppedBeforeSchema = dateTime(
  'Episodes that began before this time may have been dropped to keep status.episodes within its bound (an arrival of a node whose update started earlier is not recorded again).',
);

export const poolEpisodesSchema = array(
  poolEpisodeSchema,
  `Episodes of the pool’s nodes as they happened, oldest first; at most ${MAX_EPISODES_BYTES / 1024} KiB as JSON, the oldest finished ones dropped first.`,
  { maxItems: MAX_EPISODES },
);
