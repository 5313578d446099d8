import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';
import { transcriptionPathParams } from '../../shared/transcriptions/parameters';
import { remove } from '../../shared/transcriptions/transcription-service';

export const handler = endpoint('DELETE /api/transcriptions/{id}', {
  params: transcriptionPathParams,
  response: 'successSchema',
  docs: { summary: 'Delete a transcription record', description: 'Its duration leaves the usage of the day it was created on.', errors: ['NOT_FOUND'] },
  run: async ({ params, caller }, ctx) => {
    await remove(ctx, caller, params.id);
    return succeeded('Transcription record deleted.');
  },
});
