/** The mandates' job topic (a leaf: the job registration and the service both import it). */
export const MANDATE_EXPIRE_TOPIC = 'agent_payments.mandate.expire'
export const mandateExpireJobId = (mandateId: string) => `ap-mandate-expire:${mandateId}`
