// What a function carries of its response schema now: the generated shape and the walk that reads it.
import { shapeResponse } from '../../../shared/http/response-shape';
import { transcriptionListResponse } from '../../../shared/http/response-shapes.generated';

export const shaped = shapeResponse(transcriptionListResponse.shape, []);
