import type { getDocumentProxy } from 'unpdf';

type PdfPage = Awaited<ReturnType<Awaited<ReturnType<typeof getDocumentProxy>>['getPage']>>;

/** One picture painted on a page, as 8-bit grey levels (0 black, 255 white), row by row. */
export type GreyImage = { width: number; height: number; pixels: Uint8Array };

/** pdf.js's operator codes (OPS) for painting a picture, and the pixel layouts it decodes them to. */
const PAINT_IMAGE = 85;
const PAINT_INLINE_IMAGE = 86;
const PAINT_IMAGE_REPEAT = 88;
const GREYSCALE_1BPP = 1;
const RGB_24BPP = 2;
const RGBA_32BPP = 3;

/** Smaller than this on either side is an icon, a rule or a logo, not a scanned page or a part of one. */
const MIN_SIDE_PIXELS = 64;

type DecodedImage = { width: number; height: number; kind?: number; data?: Uint8Array | Uint8ClampedArray };

/**
 * The pictures a page paints, in the order it paints them: a scanned page is one picture (or a
 * few strips) of its text. pdf.js decodes every image filter itself (JPEG, JPEG 2000, JBIG2, CCITT
 * fax, Flate) without a canvas, so nothing is rendered: the scanner's own pixels are read. Stencil
 * masks (/ImageMask) and pictures smaller than MIN_SIDE_PIXELS are left out.
 */
export async function pageImages(page: PdfPage): Promise<GreyImage[]> {
  const operators = await page.getOperatorList();
  const images: GreyImage[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < operators.fnArray.length; i++) {
    const op = operators.fnArray[i];
    if (op !== PAINT_IMAGE && op !== PAINT_INLINE_IMAGE && op !== PAINT_IMAGE_REPEAT) continue;
    const arg = (operators.argsArray[i] as unknown[])[0];
    let image: DecodedImage | null;
    if (typeof arg === 'string') {
      // One picture painted twice (a repeated stamp) is read once.
      if (seen.has(arg)) continue;
      seen.add(arg);
      image = await objectOf(page, arg);
    } else image = arg as DecodedImage;
    const grey = image && toGrey(image);
    if (grey && grey.width >= MIN_SIDE_PIXELS && grey.height >= MIN_SIDE_PIXELS) images.push(grey);
  }
  return images;
}

function objectOf(page: PdfPage, name: string): Promise<DecodedImage | null> {
  // Pictures shared between pages live in the document's objects ("g_…"), the others in the page's.
  const objects = name.startsWith('g_') ? page.commonObjs : page.objs;
  return new Promise((resolve) => {
    try {
      objects.get(name, (value: unknown) => resolve((value as DecodedImage | null) ?? null));
    } catch {
      resolve(null);
    }
  });
}

/** pdf.js's decoded pixels (1-bit packed rows with 1 white, RGB or RGBA) as grey levels. */
export function toGrey({ width, height, kind, data }: DecodedImage): GreyImage | null {
  if (!data || !width || !height) return null;
  const pixels = new Uint8Array(width * height);
  if (kind === GREYSCALE_1BPP) {
    const rowBytes = (width + 7) >> 3;
    if (data.length < rowBytes * height) return null;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        pixels[y * width + x] = data[y * rowBytes + (x >> 3)]! & (0x80 >> (x & 7)) ? 255 : 0;
      }
    }
    return { width, height, pixels };
  }
  const channels = kind === RGB_24BPP ? 3 : kind === RGBA_32BPP ? 4 : 0;
  if (channels === 0 || data.length < width * height * channels) return null;
  for (let i = 0, j = 0; i < pixels.length; i++, j += channels) {
    // Luma (ITU-R BT.601) in integers; a transparent pixel is paper.
    const luma = (data[j]! * 77 + data[j + 1]! * 150 + data[j + 2]! * 29) >> 8;
    pixels[i] = channels === 4 && data[j + 3]! < 128 ? 255 : luma;
  }
  return { width, height, pixels };
}
