/**
 * The users module's face: the user records other modules read and write by name
 * (accounts.ts), the owner's context for work done on a user's behalf (`ownerContext`), the
 * profile view and schemas sign-in answers with, and the routes.
 */
export {
  anyAdmin, dropFcmToken, emailKey, emailTaken, findUser, findUserByEmail, findUserByUsername, insertUser, insertUserStatement,
  isEmailConflict, isUsernameConflict, namesTaken, setPasswordIfActive,
} from './accounts'
export type { UserRow } from './accounts'
export { ownerContext } from './owner'
export { Email, Username } from './model'
export { UserProfile, userView } from './view'
export { userRoutes } from './routes'
