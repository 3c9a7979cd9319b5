import { defineProblem } from '../../../core/errors.js';

export const C = {
  invalidRequest: 'image_verifier.invalid_request',
} as const;

export const ImageProblems = {
  missingImage: defineProblem('image_missing_file', 400, 'Image file required'),
  unsupported: defineProblem('image_unsupported_type', 400, 'Unsupported image type'),
  corrupt: defineProblem('image_corrupt_header', 400, 'Unreadable image header'),
  tooLarge: defineProblem('image_too_large', 413, 'Image too large'),
} as const;
