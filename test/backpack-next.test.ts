import { describe, expect, it } from 'vitest';
import { localPath } from '../src/modules/backpack/backpack.routes.js';

/** Where the backpack goes after sign-in: only a path of this service (review finding, open redirect). */
describe('the backpack sign-in next path', () => {
  it('keeps paths of this service', () => {
    expect(localPath('/backpack')).toBe('/backpack');
    expect(localPath('/ims/ob/v3p0/authorize?client_id=a&state=b')).toBe('/ims/ob/v3p0/authorize?client_id=a&state=b');
  });

  it.each([
    ['another origin', 'https://evil.example/'],
    ['a protocol-relative URL', '//evil.example'],
    ['a backslash', '/\\evil.example'],
    ['a tab a browser strips into //', '/\t/evil.example'],
    ['a line break', '/\n/evil.example'],
    ['a space', '/ /evil.example'],
    ['nothing', undefined],
  ])('drops %s', (_label, next) => {
    expect(localPath(next)).toBeNull();
  });
});
