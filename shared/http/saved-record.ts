import type { TranscriptionRecord } from '../db/transcriptions-repository';
import type { Saved } from '../transcriptions/transcription-service';
import { Reply } from './response';

/** A create's answer: the record, marked `Idempotent-Replayed: true` when its `clientRecordId` had saved it before. */
export const savedReply = ({ record, replayed }: Saved): Reply<TranscriptionRecord> =>
  new Reply(record, replayed ? { 'Idempotent-Replayed': 'true' } : {});
