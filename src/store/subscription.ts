/**
 * What a store's change subscription says of its connection (PostgreSQL's LISTEN): lost (with
 * why, and the next attempt in `retryInMs`), or listening again after `attempts` attempts,
 * `downMs` after it was lost. What was committed meanwhile was not notified: read it.
 */
export type SubscriptionStatus =
  | { readonly state: 'lost'; readonly reason: string; readonly retryInMs: number }
  | { readonly state: 'listening'; readonly attempts: number; readonly downMs: number };
