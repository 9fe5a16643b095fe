/** How API Gateway resources of a stack are named: stated once in lambda/store, which the console function reads too. */
export * from '../../lambda/store/api-gateway-names';
