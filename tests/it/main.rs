mod cep;
