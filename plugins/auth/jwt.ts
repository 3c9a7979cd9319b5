import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Role } from '../../core/types.js';

/** User access tokens: HS256 with SVC_JWT_SECRET_KEY (decisions §5). */
export const JWT_ISSUER = 'urn:proofgate:auth';

export interface UserClaims {
  sub: string;
  org_id: string;
  role: Role;
  jti: string;
  iat: number;
  exp: number;
}

export class UserTokens {
  private readonly key: Uint8Array;
  constructor(secret: string, private readonly ttlSeconds: number) {
    this.key = new TextEncoder().encode(secret);
  }

  sign(user: { id: string; org_id: string; role: Role }): Promise<string> {
    return new SignJWT({ org_id: user.org_id, role: user.role })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(user.id)
      .setIssuer(JWT_ISSUER)
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .setJti(randomUUID())
      .sign(this.key);
  }

  /** Throws on a bad signature, wrong algorithm or issuer, expiry or missing claims. */
  async verify(token: string): Promise<UserClaims> {
    const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], issuer: JWT_ISSUER, requiredClaims: ['sub', 'exp', 'iat', 'jti'] });
    const role = payload.role;
    if (typeof payload.org_id !== 'string' || (role !== 'owner' && role !== 'admin' && role !== 'member')) throw new Error('claims incomplete');
    return payload as unknown as UserClaims;
  }
}
