import * as z from 'zod/mini';
import { APNS_ENVIRONMENTS } from '../fields';

/**
 * What `PUT /api/auth/sessions/current/push` takes (docs/realtime.md#the-silent-push): the app's
 * push token of its platform. APNs device tokens are hexadecimal (32 bytes today, 64 characters;
 * Apple says they may grow, so 64 to 200); FCM registration tokens are opaque text of about 150
 * to 200 characters (up to 4 096 taken, without spaces or control characters).
 */
export const APNS_TOKEN = /^[0-9a-fA-F]{64,200}$/;
export const FCM_TOKEN = /^[\x21-\x7e]{1,4096}$/;


const apnsTokenBody = z.object({
  platform: z.literal('apns').check(z.meta({ description: '`apns`: iOS, the device token of `registerForRemoteNotifications`' })),
  token: z
    .string()
    .check(
      z.minLength(64, 'must be the APNs device token in hexadecimal, 64 to 200 characters'),
      z.maxLength(200, 'must be the APNs device token in hexadecimal, 64 to 200 characters'),
      z.regex(APNS_TOKEN, 'must be the APNs device token in hexadecimal, 64 to 200 characters'),
      z.meta({ description: 'The device token in hexadecimal (64 characters today)', examples: ['5f1e2d3c'.repeat(8)] }),
    ),
  environment: z.optional(
    z.enum(APNS_ENVIRONMENTS).check(z.meta({ description: '`sandbox` for a development build (Xcode), `production` (the default) for TestFlight and the App Store' })),
  ),
});

const fcmTokenBody = z.object({
  platform: z.literal('fcm').check(z.meta({ description: '`fcm`: Android, the FCM registration token' })),
  token: z
    .string()
    .check(
      z.minLength(1, 'must be the FCM registration token: 1 to 4096 printable characters without spaces'),
      z.maxLength(4096, 'must be the FCM registration token: 1 to 4096 printable characters without spaces'),
      z.regex(FCM_TOKEN, 'must be the FCM registration token: 1 to 4096 printable characters without spaces'),
      z.meta({ description: 'The registration token of `FirebaseMessaging.getToken()`', examples: ['dGVzdA:APA91bH-example'] }),
    ),
});

export const pushTokenBody = z.discriminatedUnion('platform', [apnsTokenBody, fcmTokenBody]);

export type PushTokenBody = z.infer<typeof pushTokenBody>;
