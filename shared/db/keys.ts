import { PARTITION_KEY, SORT_KEY } from './table';

/**
 * Key builders: the only place that knows how entities are laid out in the single table.
 *
 * | entity                      | PK                      | SK            |
 * |-----------------------------|-------------------------|---------------|
 * | user profile                | USER#<userId>           | PROFILE       |
 * | e-mail / phone uniqueness   | IDENTITY#<kind>#<value> | IDENTITY      |
 * | current verification code   | CODE#<target>           | CURRENT       |
 * | codes sent to a target/day  | CODE#<target>           | DAY#<date>    |
 * | failed password logins      | LOGIN#<subject>         | FAILURES      |
 * | id block counter            | COUNTER#<kind>          | COUNTER       |
 */
export type ItemKey = { [PARTITION_KEY]: string; [SORT_KEY]: string };

const key = (pk: string, sk: string): ItemKey => ({ [PARTITION_KEY]: pk, [SORT_KEY]: sk });

export type IdentityKind = 'email' | 'phone';

export const keys = {
  user: (userId: number) => key(`USER#${userId}`, 'PROFILE'),
  identity: (kind: IdentityKind, value: string) => key(`IDENTITY#${kind}#${value}`, 'IDENTITY'),
  currentCode: (target: string) => key(`CODE#${target}`, 'CURRENT'),
  codeDay: (target: string, utcDate: string) => key(`CODE#${target}`, `DAY#${utcDate}`),
  loginFailures: (subject: string) => key(`LOGIN#${subject}`, 'FAILURES'),
  idCounter: (kind: string) => key(`COUNTER#${kind}`, 'COUNTER'),
};
