// Token signing and verification.
import { SignJWT, jwtVerify } from 'jose';

export const tokens = { SignJWT, jwtVerify };
