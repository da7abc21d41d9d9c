import { Type } from '@sinclair/typebox';

export const IssuerSchema = Type.Object(
  {
    id: Type.String(),
    slug: Type.String(),
    name: Type.String(),
    profileUrl: Type.String({ format: 'uri', description: 'Resolvable Open Badges 2.0 Issuer Profile id' }),
  },
  { $id: 'Issuer' },
);
