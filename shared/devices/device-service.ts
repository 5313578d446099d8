import { readForAccount } from '../db/account-guard';
import type { AccountRef } from '../db/account-guard';
import { bindDevice, findDevice, listDevices, unbindDevice } from '../db/devices-repository';
import type { Device } from '../db/devices-repository';
import type { Page, PageRequest } from '../db/pagination';
import { NotFoundError } from '../errors';
import { isoSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';
import type { BindDeviceInput } from './schemas';

/** Binds a device to the caller (seed 4.7); binding it again answers the original binding. */
export function bind(ctx: ServiceContext, account: AccountRef, input: BindDeviceInput): Promise<Device> {
  const now = ctx.clock.now();
  return bindDevice(ctx.db, account, {
    ...input,
    userId: account.userId,
    createdAt: isoSeconds(now),
    createdAtMs: now.toISOString(),
  });
}

export function unbind(ctx: ServiceContext, account: AccountRef, sn: string): Promise<void> {
  return unbindDevice(ctx.db, account, sn);
}

/** One of the caller's devices; a serial bound to another account, or to none, is 404. */
export async function get(ctx: ServiceContext, account: AccountRef, sn: string): Promise<Device> {
  const device = await readForAccount(ctx.db, account, () => findDevice(ctx.db, account.userId, sn));
  if (!device) throw new NotFoundError('No device with this serial number is bound to your account.');
  return device;
}

/** The caller's devices, newest binding first. */
export async function list(ctx: ServiceContext, account: AccountRef, page: PageRequest): Promise<Page<Device>> {
  return readForAccount(ctx.db, account, () => listDevices(ctx.db, account.userId, page));
}
