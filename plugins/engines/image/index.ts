import type { App, MultipartBody, Plugin, Verifier } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import { blocked } from '../../../core/verdict.js';
import { C, ImageProblems } from './errors.js';
import { HeaderError, readImageHeader, type ImageInfo } from './header.js';
import { judge } from './verdict.js';
import { sha256HexYielding } from '../../../core/canonical.js';

export { readImageHeader } from './header.js';
export { analyseClaim } from './claims.js';

const S = 'https://proofgate.dev/schemas/image';
/** spec: 10 MB per image */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
const ENVELOPE_BYTES = 64 * 1024;

function header(data: Buffer): ImageInfo {
  try {
    return readImageHeader(data);
  } catch (err) {
    if (!(err instanceof HeaderError)) throw err;
    throw new HttpError(err.kind === 'unsupported' ? ImageProblems.unsupported : ImageProblems.corrupt, err.message);
  }
}

/**
 * POST /verify/image: claims about the file's format, dimensions and size are proven from its header
 * bytes; claims about what it shows need a vision model and are answered VLM_REQUIRED. Header
 * parsing reads a few hundred bytes at most, so it runs on the request thread.
 */
const imagePlugin: Plugin = {
  name: 'image',
  /** its name before 0.x: still accepted in plugins.disabled, with a warning */
  aliases: ['engine-image'],
  register(app: App) {
    app.route({
      method: 'POST',
      path: '/verify/image',
      auth: 'apiKey',
      scope: 'verify:read',
      tags: ['verification'],
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
    // composite routes: input {image_base64, claim}; an unusable image is a BLOCKED verdict
    app.provide<Verifier>('verifier.image', {
      async verify(input) {
        const { image_base64, claim } = input;
        if (typeof image_base64 !== 'string' || typeof claim !== 'string' || !claim.trim()) {
          return blocked('An image request needs image_base64 and claim strings.', C.invalidRequest);
        }
        const data = Buffer.from(image_base64, 'base64');
        if (data.length > MAX_IMAGE_BYTES) return blocked(`The image exceeds ${MAX_IMAGE_BYTES} bytes.`, C.invalidRequest);
        try {
          const info = readImageHeader(data);
          return judge(claim, info, data, 'application/octet-stream', await sha256HexYielding(data)).diagnostic;
        } catch (err) {
          if (!(err instanceof HeaderError)) throw err;
          return blocked(`The image was refused: ${err.message}.`, C.invalidRequest);
        }
      },
    });
  },
};

export default imagePlugin;
