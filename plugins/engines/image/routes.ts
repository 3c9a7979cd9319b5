import type { App, MultipartBody } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import { sha256HexYielding } from '../../../core/json/canonical.js';
import { ImageProblems } from './errors.js';
import { HeaderError, readImageHeader, type ImageInfo } from './header.js';
import { judge, MAX_IMAGE_BYTES } from './verifier.js';

const S = 'https://proofgate.dev/schemas/image';
const ENVELOPE_BYTES = 64 * 1024;

function header(data: Buffer): ImageInfo {
  try {
    return readImageHeader(data);
  } catch (err) {
    if (!(err instanceof HeaderError)) throw err;
    throw new HttpError(err.kind === 'unsupported' ? ImageProblems.unsupported : ImageProblems.corrupt, err.message);
  }
}

export function registerRoutes(app: App): void {
  app.route({
    method: 'POST',
    path: '/verify/image',
    auth: 'apiKey',
    scope: 'verify:read',
    verification: { attest: false },
    bodyType: 'multipart',
    bodyLimit: MAX_IMAGE_BYTES + ENVELOPE_BYTES,
    schema: { body: `${S}/request.json`, response: `${S}/response.json` },
    async handler(ctx) {
      const body = ctx.body as MultipartBody;
      const files = body.files.filter((f) => f.field === 'image');
      if (files.length !== 1) throw new HttpError(ImageProblems.missingImage, 'send exactly one image in the multipart field "image"');
      const file = files[0];
      if (file.data.length > MAX_IMAGE_BYTES) throw new HttpError(ImageProblems.tooLarge, `the image exceeds ${MAX_IMAGE_BYTES} bytes`);
      const info = header(file.data);
      const { fields, diagnostic } = judge(body.fields.claim, info, file.data, file.mimeType, await sha256HexYielding(file.data));
      return { status: 200, verdict: diagnostic, body: fields };
    },
  });
}
