import { endpoint } from '../../shared/http/endpoint';
import { currentUser } from '../../shared/identity/account-service';

export const handler = endpoint('GET /api/users/me', {
  run: async ({ caller }, ctx) => {
    const user = await currentUser(ctx, caller.userId, caller.tokenVersion);
    return { userId: user.userId, phone: user.phone, email: user.email, createdAt: user.createdAt, updatedAt: user.updatedAt };
  },
});
