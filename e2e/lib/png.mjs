// What a screenshot contains, in numbers: enough to tell a drawn scene from a blank canvas.

import { PNG } from 'pngjs';

/**
 * Decodes a PNG and measures it.
 * @param {Buffer} buffer
 * @returns {{width: number, height: number, distinctColours: number, dominantShare: number,
 *            lumaMean: number, lumaStdDev: number}}
 *   `dominantShare` is the fraction of pixels that have the most common colour;
 *   luma is 0..255 (Rec. 709 weights).
 */
export function imageStats(buffer) {
  const { width, height, data } = PNG.sync.read(buffer);
  const counts = new Map();
  let sum = 0;
  let sumOfSquares = 0;
  const pixels = width * height;
  for (let i = 0; i < pixels * 4; i += 4) {
    const r = data[i];
    const g = data[i + 1];
    const b = data[i + 2];
    const key = (r << 16) | (g << 8) | b;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const luma = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    sum += luma;
    sumOfSquares += luma * luma;
  }
  const lumaMean = pixels ? sum / pixels : 0;
  const variance = pixels ? Math.max(0, sumOfSquares / pixels - lumaMean * lumaMean) : 0;
  let dominant = 0;
  for (const count of counts.values()) dominant = Math.max(dominant, count);
  return {
    width,
    height,
    distinctColours: counts.size,
    dominantShare: pixels ? dominant / pixels : 1,
    lumaMean,
    lumaStdDev: Math.sqrt(variance),
  };
}

/**
 * How many pixels of a PNG satisfy `keep(r, g, b)`.
 * @param {Buffer} buffer
 * @param {(r: number, g: number, b: number) => boolean} keep
 */
export function countPixels(buffer, keep) {
  const { width, height, data } = PNG.sync.read(buffer);
  let count = 0;
  for (let i = 0; i < width * height * 4; i += 4) {
    if (keep(data[i], data[i + 1], data[i + 2])) count += 1;
  }
  return count;
}
