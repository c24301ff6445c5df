/** A QR code as SVG: the module matrix from `uqr` (bundled at build time), drawn as one path. */
import { encode } from 'uqr';

export function QrCode({ text, label }: { text: string; label: string }) {
  const { data } = encode(text, { ecc: 'M', border: 2 });
  const size = data.length;
  let d = '';
  data.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) d += `M${x} ${y}h1v1h-1z`;
    });
  });
  return (
    <svg class="qr" viewBox={`0 0 ${size} ${size}`} role="img" aria-label={label} shape-rendering="crispEdges">
      <rect width={size} height={size} fill="#fff" />
      <path d={d} />
    </svg>
  );
}
