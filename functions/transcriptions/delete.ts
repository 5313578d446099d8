import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';
import { transcriptionPathParams } from '../../shared/transcriptions/schemas';
import { remove } from '../../shared/transcriptions/transcription-service';

export const handler = endpoint('DELETE /api/transcriptions/{id}', {
  params: transcriptionPathParams,
  run: async ({ params, caller }, ctx) => {
    await remove(ctx, caller, params.id);
    return succeeded('Transcription record deleted.');
  },
});
