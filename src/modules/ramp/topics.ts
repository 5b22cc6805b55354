/** The bank ramp's job topic (a leaf: the job registration and the code that schedules it both import it). */
export const PAYOUT_ADVANCE_TOPIC = 'ramp.payout.advance'
