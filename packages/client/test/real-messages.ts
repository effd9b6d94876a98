/**
 * Real trade messages as ingest publishes them on NATS (the exact bytes), for tests of how the
 * client reads them.
 *
 * PUMPFUN_BUY_V2: the pump.fun buy of transaction 661yA5s6… (services/ingest/recording/pumpfun/
 * 661yA5s6uxUsggTcT4cZ6yyMfNmF4mCZzxLnCb1zBrSY3YhAiouYXBitiPvkngBEKxaeGcpXiek6qXDajiRr9wuY.json,
 * a 2024-11-07 mainnet create + dev buy of LEGO ROBOT DOG / LEDOG), the second line of
 * `npm run decode -- <that file>` (message schema version 2: `"type": "trade"` and the product
 * spec §3 `data` object). Regenerate it the same way if the decoder's output changes.
 */
export const PUMPFUN_BUY_V2 =
  '{"source":"pumpfun","transaction_type":"BUY","signature":"661yA5s6uxUsggTcT4cZ6yyMfNmF4mCZzxLnCb1zBrSY3YhAiouYXBitiPvkngBEKxaeGcpXiek6qXDajiRr9wuY","slot":299999988,"commitment":"confirmed","block_time_ms":1730981791000,"instruction_path":[2],"program_id":"6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P","schema_version":2,"mint":"5qDerhe7hTPFHjjRYoWbiWKGpwyBLPM85dzQnkd3pump","sol_amount":"1349999998","token_amount":"46205741539516","is_buy":true,"user":"GPxL1o9PT8cBe5xYCnDr3RdBZanPS9cNPSco2zWMGtZs","timestamp":"1730981791","virtual_sol_reserves":"31349999998","virtual_token_reserves":"1026794258460484","real_sol_reserves":"1349999998","real_token_reserves":"746894258460484","side":"buy","bonding_curve":"3AhKKQVksLbBcUr9o8jhQQ6JTmgwNH3paoAdi9cjTyjb","sol_amount_ui":1.349999998,"token_amount_ui":46205741.539516,"price_sol":3.053191984634232e-8,"name":"LEGO ROBOT DOG","symbol":"LEDOG","type":"trade","data":{"symbol":"LEDOG","price":3.053191984634232e-8,"volume":1.349999998,"side":"buy","timestamp":1730981791000,"txHash":"661yA5s6uxUsggTcT4cZ6yyMfNmF4mCZzxLnCb1zBrSY3YhAiouYXBitiPvkngBEKxaeGcpXiek6qXDajiRr9wuY","poolAddress":"3AhKKQVksLbBcUr9o8jhQQ6JTmgwNH3paoAdi9cjTyjb"}}';
