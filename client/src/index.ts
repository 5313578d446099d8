export { createClient } from './create-client';
export type { CaptioningClient, ClientOptions } from './create-client';
export { memoryStorage, webStorage } from './storage';
export type { Storage, WebStorage } from './storage';
export { ApiError, NetworkError, SignedOutError } from './errors';
export type { DroppedEvents, EventType, FlushResult, PendingEvents, QueuedEvent } from './events';
export type { NewTranscription } from './transcriptions';
export type { RetryOptions } from './retry';
export type { paths, components, operations } from './generated/api';
