/**
 * Colours derived from the shop's theme colour so that every text meets WCAG 2.1 AA (4.5:1):
 * the text on the theme colour is white or near-black, whichever contrasts more, and links and
 * focus rings on the panel's light backgrounds use the theme colour darkened until they contrast.
 */
export type Theme = { theme: string; onTheme: string; accent: string };

const FALLBACK_THEME = '#1f5fbf';
/** The assistant's message background, the darkest light surface an accent sits on. */
export const BOT_BACKGROUND = '#f1f3f5';

type Rgb = [number, number, number];

function parse(hex: string): Rgb {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

const toHex = (rgb: Rgb) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

function luminance(rgb: Rgb): number {
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrastRatio(a: string, b: string): number {
  const [x, y] = [luminance(parse(a)), luminance(parse(b))];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

export function deriveTheme(themeColor: string): Theme {
  const theme = /^#[0-9a-f]{6}$/i.test(themeColor) ? themeColor.toLowerCase() : FALLBACK_THEME;
  const onWhite = contrastRatio(theme, '#ffffff');
  const onDark = contrastRatio(theme, '#111111');
  // Mid greys reach 4.5:1 with neither white nor #111; pure black always does (≥ 4.58:1).
  const onTheme = onWhite >= 4.5 && onWhite >= onDark ? '#ffffff' : onDark >= 4.5 ? '#111111' : '#000000';
  let accent = parse(theme);
  for (let step = 0; step < 20 && contrastRatio(toHex(accent), BOT_BACKGROUND) < 4.5; step++) {
    accent = accent.map((c) => c * 0.9) as Rgb;
  }
  return { theme, onTheme, accent: toHex(accent) };
}
