import { listEndpoint } from '../../shared/http/list-endpoint';
import { list } from '../../shared/transcriptions/transcription-service';

/** The caller's records, newest first, paginated. */
export const handler = listEndpoint('GET /api/transcriptions', {
  response: 'transcriptionListSchema',
  docs: { summary: 'List your transcription records', description: 'Newest first, full records.' },
  list,
});
