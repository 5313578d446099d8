import * as z from 'zod/mini';
import { textField } from '../../fields';

/**
 * The bodies of the social sign-ins and links (docs/social-sign-in.md). Tokens and codes are any
 * string up to a size no provider's exceeds: a malformed one is a 401 SOCIAL_CREDENTIAL_INVALID
 * (verification refuses it), not a 400 that would tell a forger which check it failed.
 */
const credential = (description: string) => z.string().check(z.minLength(1), z.maxLength(8192), z.describe(description));
const nonce = z.string().check(z.minLength(1), z.maxLength(512), z.describe('The nonce `POST /api/auth/social/nonce` answered, itself (the provider was given its SHA-256 hex)'));

export const appleSignInSchema = z.object({
  identityToken: credential('The identity token of ASAuthorizationAppleIDCredential (or Sign in with Apple JS), as text'),
  authorizationCode: credential('The authorization code of the same authorization, as text: the service exchanges it for Apple’s refresh token'),
  nonce,
  fullName: z.optional(
    z.object({
      givenName: z.optional(textField(0, 100)),
      familyName: z.optional(textField(0, 100)),
    }).check(z.describe('The name Apple gave the app: only at the first authorization, so send it then; later sign-ins without it keep it')),
  ),
});

export const googleSignInSchema = z.object({
  idToken: credential('The ID token Google Sign-In (Credential Manager, GIDSignIn) gave the app'),
  nonce,
});

export const wechatSignInSchema = z.object({
  code: credential('The code of WeChat’s SendAuth response'),
  appId: z.optional(z.string().check(z.minLength(1), z.maxLength(64), z.describe('The WeChat app id the code came from; the first configured one when absent'))),
});

export const providerSchema = z.enum(['apple', 'google', 'wechat']);
