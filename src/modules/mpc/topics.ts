/** The MPC module's job topic (a leaf: the job registration and the code that schedules it both import it). */
export const MPC_SERVICE_PARTY_TOPIC = 'mpc.service.party'
