/**
 * The user records other modules read and write, by name: sign-in and registration (auth),
 * a linked social account (social), a reset password (password-reset), a push token
 * (notifications), a wallet's owner (wallets, portfolio). The users table's shape stays
 * behind them; every one takes the tenant scope (null for the platform) first.
 */
import * as repo from './repo'

export type { UserRow } from './repo'

export const findUser = repo.findById
export const findUserByUsername = repo.findByUsername
export const findUserByEmail = repo.findByEmail
export const emailKey = repo.emailKey
export const anyAdmin = repo.anyAdmin
export const namesTaken = repo.namesTaken
export const emailTaken = repo.emailTaken
export const insertUser = repo.insertUser
export const insertUserStatement = repo.insertUserStatement
export const isUsernameConflict = repo.isUsernameConflict
export const isEmailConflict = repo.isEmailConflict
export const setPasswordIfActive = repo.setPasswordIfActive
export const dropFcmToken = repo.dropFcmToken
