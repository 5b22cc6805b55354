/** What other modules read of linked social accounts: the providers a user signs in with (password reset tells them). */
import * as repo from './repo'

export const providersOf = repo.providersOf
