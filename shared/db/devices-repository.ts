import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DeviceBoundElsewhereError, NotFoundError, ServiceUnavailableError } from '../errors';
import { accountIsCurrent, USER_WRITE_RETRY } from './account-guard';
import type { AccountRef } from './account-guard';
import type { Database } from './client';
import { keys, sortKeyPrefix } from './keys';
import { queryPage } from './pagination';
import type { ListShape, Page, PageRequest } from './pagination';
import { LIST_INDEX_NAME, LIST_INDEX_SORT_KEY } from './table';
import { writeAtomically } from './transactions';
import type * as z from 'zod/mini';
import type { deviceSchema } from '../api/schemas';

/** A bound device, as the API answers it (seed 2.2): `publicDevice` and `toDevice` copy exactly these fields. */
export type Device = z.output<typeof deviceSchema>;

/** A device as it is bound: `createdAtMs` orders the list, `createdAt` is what clients see. */
export interface NewDevice extends Device {
  createdAtMs: string;
}

const ISO_MS = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z';
const SN = '[A-Za-z0-9._-]{1,64}';

export const DEVICE_LIST: ListShape = {
  index: LIST_INDEX_NAME,
  prefix: sortKeyPrefix.deviceList,
  sortKey: new RegExp(`^DEV#${ISO_MS}#${SN}$`),
  tableSortKey: new RegExp(`^DEVICE#${SN}$`),
};

const publicDevice = ({ sn, userId, mac, productModel, createdAt }: Device): Device => ({ sn, userId, mac, productModel, createdAt });

export const toDevice = (item: Record<string, unknown>): Device => ({
  sn: String(item.sn),
  userId: Number(item.userId),
  mac: String(item.mac),
  productModel: String(item.productModel),
  createdAt: String(item.createdAt),
});

/** The serial is owned already; `ownerId` says by whom, `createdAt` since when. */
class SerialTaken extends Error {
  constructor(
    readonly ownerId: number,
    readonly createdAt: string,
  ) {
    super('serial taken');
  }
}

class DeviceVanished extends Error {}

/**
 * Claims the serial for the caller and stores the device in the caller's partition, in one
 * transaction with the account check. The owner marker outside the partition is what makes a
 * serial belong to one account: of any number of concurrent binds, one creates it.
 */
async function claim(db: Database, account: AccountRef, device: NewDevice): Promise<void> {
  await writeAtomically(
    db,
    [
      accountIsCurrent(db, account),
      {
        item: {
          Put: {
            TableName: db.tableName,
            Item: { ...keys.deviceOwner(device.sn), userId: account.userId, createdAt: device.createdAt },
            ConditionExpression: 'attribute_not_exists(PK)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        onConditionFailed: (old) => new SerialTaken(Number(old?.userId), String(old?.createdAt)),
      },
      {
        item: {
          Put: {
            TableName: db.tableName,
            Item: {
              ...keys.device(account.userId, device.sn),
              [LIST_INDEX_SORT_KEY]: keys.deviceListKey(device.createdAtMs, device.sn),
              sn: device.sn,
              userId: account.userId,
              mac: device.mac,
              productModel: device.productModel,
              createdAt: device.createdAt,
            },
            // Written only together with the marker; a leftover would mean the marker is ours.
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        onConditionFailed: () => new SerialTaken(account.userId, device.createdAt),
      },
    ],
    USER_WRITE_RETRY,
  );
}

/**
 * Binding a device the caller already owns: keeps the binding and its createdAt, and takes the
 * mac and model of this request (a corrected model name should not need an unbind). Conditioned on
 * the serial still being the caller's: an unbind racing with it sends the bind back to `claim`.
 */
async function refresh(db: Database, account: AccountRef, device: NewDevice): Promise<void> {
  await writeAtomically(
    db,
    [
      accountIsCurrent(db, account),
      {
        item: {
          ConditionCheck: {
            TableName: db.tableName,
            Key: keys.deviceOwner(device.sn),
            ConditionExpression: 'userId = :me',
            ExpressionAttributeValues: { ':me': account.userId },
          },
        },
        onConditionFailed: () => new DeviceVanished(),
      },
      {
        item: {
          Update: {
            TableName: db.tableName,
            Key: keys.device(account.userId, device.sn),
            UpdateExpression: 'SET mac = :mac, productModel = :model',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':mac': device.mac, ':model': device.productModel },
          },
        },
        onConditionFailed: () => new DeviceVanished(),
      },
    ],
    USER_WRITE_RETRY,
  );
}

/** Binds a serial to the caller; idempotent for the owner, refused for everyone else. */
export async function bindDevice(db: Database, account: AccountRef, device: NewDevice): Promise<Device> {
  // Three rounds at most: each lost round means a concurrent bind or unbind changed the serial.
  for (let round = 0; round < 3; round++) {
    try {
      await claim(db, account, device);
      return publicDevice(device);
    } catch (error) {
      if (!(error instanceof SerialTaken)) throw error;
      if (error.ownerId !== account.userId) {
        throw new DeviceBoundElsewhereError('This device is bound to another account.');
      }
      try {
        await refresh(db, account, device);
        return { ...publicDevice(device), createdAt: error.createdAt };
      } catch (refreshError) {
        if (!(refreshError instanceof DeviceVanished)) throw refreshError;
      }
    }
  }
  throw new ServiceUnavailableError('The device changed hands during the request; try again.');
}

/** Unbinds one of the caller's devices: the serial is free for anyone afterwards. */
export async function unbindDevice(db: Database, account: AccountRef, sn: string): Promise<void> {
  const notYours = () => new NotFoundError('No device with this serial number is bound to your account.');
  await writeAtomically(
    db,
    [
      accountIsCurrent(db, account),
      {
        item: {
          Delete: {
            TableName: db.tableName,
            Key: keys.deviceOwner(sn),
            // Only the owner may free a serial; for anyone else it does not exist.
            ConditionExpression: 'userId = :me',
            ExpressionAttributeValues: { ':me': account.userId },
          },
        },
        onConditionFailed: notYours,
      },
      {
        item: {
          Delete: {
            TableName: db.tableName,
            Key: keys.device(account.userId, sn),
            ConditionExpression: 'attribute_exists(PK)',
          },
        },
        onConditionFailed: notYours,
      },
    ],
    USER_WRITE_RETRY,
  );
}

/** One of the user's devices by serial; another user's serial is simply not in this partition. */
export async function findDevice(db: Database, userId: number, sn: string): Promise<Device | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.device(userId, sn), ConsistentRead: true }));
  return result.Item ? toDevice(result.Item) : undefined;
}

export async function listDevices(db: Database, userId: number, page: PageRequest): Promise<Page<Device>> {
  const result = await queryPage(db, keys.userPartition(userId), DEVICE_LIST, page);
  return { ...result, items: result.items.map(toDevice) };
}

/** The account a serial is bound to (its owner marker), if any. */
export async function findSerialOwner(db: Database, sn: string): Promise<number | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.deviceOwner(sn), ConsistentRead: true }));
  return result.Item ? Number(result.Item.userId) : undefined;
}

/**
 * Support's release of a serial (issue 37): the owner marker and the device item of `ownerId`, in
 * one transaction, so the serial is free for anyone and gone from the owner's list. The owner's
 * other data (records, events) stays theirs: nothing in it names the serial's next owner.
 * Conditioned on `ownerId` still holding it: an unbind or a purge in between makes this a 404.
 */
export async function releaseSerial(db: Database, ownerId: number, sn: string): Promise<void> {
  const gone = () => new NotFoundError('No device with this serial number is bound to any account.');
  await writeAtomically(db, [
    {
      item: {
        Delete: {
          TableName: db.tableName,
          Key: keys.deviceOwner(sn),
          // Only while the owner read is still the owner.
          ConditionExpression: 'userId = :owner',
          ExpressionAttributeValues: { ':owner': ownerId },
        },
      },
      onConditionFailed: gone,
    },
    { item: { Delete: { TableName: db.tableName, Key: keys.device(ownerId, sn) } } },
  ]);
}
