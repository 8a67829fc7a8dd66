// placeholder until the load balancers land
