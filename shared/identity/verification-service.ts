import { randomUUID } from 'node:crypto';
import { consumeCode, countWrongGuess, discardUndeliveredCode, findCurrentCode, storeNewCode } from '../db/codes-repository';
import type { StoredCode } from '../db/codes-repository';
import type { GuardedWrite } from '../db/transactions';
import { takeSmsFromBudget } from '../db/sms-budget-repository';
import { CodeAttemptsExceededError, CodeInvalidError, DeliveryFailedError, SmsLimitReachedError } from '../errors';
import { maskTarget } from '../logging/logger';
import { epochSeconds, utcDate } from '../ports/clock';
import type { ServiceContext } from '../service-context';
import { MAX_CODE_ATTEMPTS, codeMatches, generateCode, hashCode } from './codes';
import { findIdentityForCode } from '../db/users-repository';
import { chooseLocale, renderCodeMessage } from './messages';
import type { Locale } from './messages';
import type { Target } from './targets';

/** The log message of a tripped SMS circuit breaker; the stack counts it as a metric. */
export const SMS_LIMIT_REACHED_LOG = 'sms limit reached';

/**
 * Sends a new code to a target. The answer is the same whether or not an account uses the target,
 * so the endpoint cannot be used to find accounts. Without a `locale` from the request, the
 * message is in the `locale` of the target's account, read from its identity marker: one read
 * whether or not an account exists, so that it takes no longer for one than for none.
 */
export async function sendCode(ctx: ServiceContext, target: Target, requested: Locale | undefined): Promise<void> {
  const { config, clock, db } = ctx;
  if (target.kind === 'phone' && config.SMS_ALLOWED_COUNTRY_CODES && !config.SMS_ALLOWED_COUNTRY_CODES.includes(target.countryCallingCode)) {
    // Refused quietly with the ordinary answer: the caller learns nothing about the list.
    ctx.log.info('code not sent: country not allowed', { target: maskTarget(target.value) });
    return;
  }
  const holder = await findIdentityForCode(db, target.kind, target.value);
  if (holder.disabled) {
    // A disabled account gets no code; the caller gets the ordinary answer, as for any target.
    ctx.log.info('code not sent: account disabled', { target: maskTarget(target.value) });
    return;
  }
  if (holder.undeliverable) {
    // Apple said mail to this private relay address reaches nobody (its `email-disabled`): the
    // code would be lost, and the caller gets the ordinary answer, as for any target.
    ctx.log.info('code not sent: address not deliverable', { target: maskTarget(target.value) });
    return;
  }
  const locale = requested ?? chooseLocale(holder.locale ?? undefined, undefined);
  const { codeHashKey } = await ctx.keys();
  const now = clock.now();
  const sentAt = epochSeconds(now);
  const code = generateCode();
  const codeId = randomUUID();
  const day = utcDate(now);
  await storeNewCode(
    db,
    target.value,
    { codeId, codeHash: hashCode(codeHashKey, target.value, code), sentAt, expiresAt: sentAt + config.CODE_TTL_SECONDS },
    day,
    { resendSeconds: config.CODE_RESEND_SECONDS, dailyLimit: config.CODE_DAILY_LIMIT, maxAttempts: MAX_CODE_ATTEMPTS },
  );
  const channel = target.kind === 'email' ? 'email' : 'sms';
  const message = renderCodeMessage(channel, locale, {
    appName: config.APP_NAME,
    code,
    validMinutes: Math.round(config.CODE_TTL_SECONDS / 60),
  });
  // The SMS circuit breaker, after the per-target limits (a refused resend spends nothing) and
  // before delivery: past the deployment's hourly budget the send is undone and answers 429.
  if (channel === 'sms' && !(await takeSmsFromBudget(db, now, config.SMS_MAX_PER_HOUR))) {
    ctx.log.warn(SMS_LIMIT_REACHED_LOG, { target: maskTarget(target.value), limitPerHour: config.SMS_MAX_PER_HOUR });
    await discardUndeliveredCode(db, target.value, codeId, day);
    const nextHour = Math.ceil((now.getTime() + 1) / 3_600_000) * 3_600_000;
    throw new SmsLimitReachedError('Codes by SMS are paused for now. Try again later, or use e-mail.', Math.max(1, Math.ceil((nextHour - now.getTime()) / 1000)));
  }
  try {
    await ctx.codeSender.send({ channel, target: target.value, code, locale, ...message });
  } catch (error) {
    ctx.metrics.count('CodeDeliveryFailures', channel);
    ctx.log.warn('code delivery failed', { channel, target: maskTarget(target.value), errorName: (error as Error).name });
    await discardUndeliveredCode(db, target.value, codeId, day);
    throw new DeliveryFailedError('The code could not be delivered. Try again shortly.', { cause: error });
  }
  ctx.metrics.count('CodesSent', channel);
  // Bounded: with SMS_ALLOWED_COUNTRY_CODES only those codes get SMS at all; without, ITU assigns a few hundred.
  if (target.kind === 'phone') ctx.metrics.count('SmsCodesSentByCountry', target.countryCallingCode);
}

/**
 * Checks a submitted code and returns the write that spends it, for the caller's transaction.
 * A wrong guess is counted (at most MAX_CODE_ATTEMPTS, however many arrive at once); the guess
 * that reaches the maximum voids the code.
 */
export async function checkCode(ctx: ServiceContext, target: string, submitted: string): Promise<GuardedWrite> {
  const checked = await checkCodeOrSpent(ctx, target, submitted);
  if (checked === 'spent') {
    ctx.metrics.count('CodeVerificationsFailed');
    throw new CodeInvalidError('The verification code is invalid or has expired.');
  }
  return checked;
}

/**
 * checkCode, telling a right code that was already used ('spent') from a wrong one: only someone
 * who holds the target's code learns it, so an operation may then say why the code was spent
 * (another account claimed the target with it) without telling anyone else anything.
 */
export async function checkCodeOrSpent(ctx: ServiceContext, target: string, submitted: string): Promise<GuardedWrite | 'spent'> {
  try {
    return await checkStoredCode(ctx, target, submitted);
  } catch (error) {
    if (error instanceof CodeInvalidError || error instanceof CodeAttemptsExceededError) ctx.metrics.count('CodeVerificationsFailed');
    throw error;
  }
}

async function checkStoredCode(ctx: ServiceContext, target: string, submitted: string): Promise<GuardedWrite | 'spent'> {
  const stored: StoredCode | undefined = await findCurrentCode(ctx.db, target);
  const now = epochSeconds(ctx.clock.now());
  // A used code is told apart only while it would still be valid, and wrong guesses at it count
  // toward the same five tries: it cannot be guessed at to learn who claimed the target.
  if (stored?.usedAt !== undefined && stored.expiresAt > now && stored.attempts < MAX_CODE_ATTEMPTS) {
    const { codeHashKey } = await ctx.keys();
    if (codeMatches(codeHashKey, target, submitted, stored.codeHash)) return 'spent';
    await countWrongGuess(ctx.db, target, stored.codeId, MAX_CODE_ATTEMPTS, true);
    throw new CodeInvalidError('The verification code is invalid or has expired.');
  }
  if (!stored || stored.usedAt !== undefined || stored.expiresAt <= now) {
    throw new CodeInvalidError('The verification code is invalid or has expired.');
  }
  if (stored.attempts >= MAX_CODE_ATTEMPTS) {
    throw new CodeAttemptsExceededError('Too many wrong codes; request a new code.');
  }
  const { codeHashKey } = await ctx.keys();
  if (!codeMatches(codeHashKey, target, submitted, stored.codeHash)) {
    const attempts = await countWrongGuess(ctx.db, target, stored.codeId, MAX_CODE_ATTEMPTS);
    throw attempts >= MAX_CODE_ATTEMPTS
      ? new CodeAttemptsExceededError('Too many wrong codes; request a new code.')
      : new CodeInvalidError('The verification code is invalid or has expired.');
  }
  return consumeCode(ctx.db, target, stored, now, MAX_CODE_ATTEMPTS);
}
