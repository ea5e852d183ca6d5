select count(*) as n from orders where o_orderdate >= date '1996-06-01' and o_orderdate < date '1996-07-01'
