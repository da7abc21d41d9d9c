import { describe, expect, it } from 'vitest';
import { contrastRatio, safeHexColor, textColorOn } from '../src/core/colors.js';

describe('brand colours', () => {
  it('accepts plain hex colours only, in lower case', () => {
    expect(safeHexColor('#1F5FBF')).toBe('#1f5fbf');
    expect(safeHexColor('#abc')).toBe('#abc');
    for (const bad of ['red', '#12345', '#1234567', '1f5fbf', '#12345g', 'url(x)', '', null, undefined]) {
      expect(safeHexColor(bad)).toBeUndefined();
    }
  });

  it('computes WCAG contrast ratios', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
    expect(contrastRatio('#fff', '#ffffff')).toBe(1);
  });

  it('picks the text colour with the higher contrast, never under 4.5:1', () => {
    for (const color of ['#e67e22', '#00aaff', '#808080', '#ffff00', '#1f5fbf', '#123456', '#767676', '#777777']) {
      const ink = textColorOn(color);
      const other = ink === '#000000' ? '#ffffff' : '#000000';
      expect(contrastRatio(color, ink), color).toBeGreaterThanOrEqual(contrastRatio(color, other));
      expect(contrastRatio(color, ink), color).toBeGreaterThan(4.5);
    }
  });
});
